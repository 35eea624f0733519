// Package testpacks holds the small packs the tests of the model, the
// generator, the customer and the domains share: two folders in the
// format users write (library, catalog) and one built in Go (GoPack),
// each exercising what the others lack. It is test support only: no
// command or library code imports it.
package testpacks
