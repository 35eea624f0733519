package pack

import "slices"

// checkTasks finds a task mix that weighs nothing (the schema holds each
// weight to 0 or more).
func (c *checker) checkTasks() {
	if ww := c.man.Tasks.WriteWeights; len(ww) > 0 && !slices.ContainsFunc(ww, func(w float64) bool { return w > 0 }) {
		c.addY(loc("tasks", "write_weights"), "every weight is 0: give at least one number of writes a weight above 0")
	}
}
