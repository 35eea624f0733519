// Package pipeline composes synth's stages into a run: blueprints, simulation, verification and export, concurrently and deterministically.
package pipeline
