// Package blueprints generates tasks with executed, identifiable ground truth under write and read intensity controls.
package blueprints
