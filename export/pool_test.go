package export

import (
	"testing"
	"unsafe"
)

// TestPoolAllocator: a buffer comes back aligned, as long as asked and
// zeroed, whether it is new, mapped or one freed before; growing keeps
// the contents.
func TestPoolAllocator(t *testing.T) {
	a := newPoolAllocator()
	check := func(name string, b []byte, size int) {
		t.Helper()
		if len(b) != size || cap(b) != size {
			t.Fatalf("%s: len %d cap %d, want %d", name, len(b), cap(b), size)
		}
		if size > 0 && uintptr(unsafe.Pointer(unsafe.SliceData(b)))%poolAlign != 0 {
			t.Fatalf("%s: not %d-byte aligned", name, poolAlign)
		}
		for i, c := range b {
			if c != 0 {
				t.Fatalf("%s: byte %d is %d, want 0", name, i, c)
			}
		}
	}
	for _, size := range []int{0, 1, 63, 64, 65, 1000, 4096, 100_000, mapMin, 3 << 20} {
		b := a.Allocate(size)
		check("new", b, size)
		for i := range b {
			b[i] = 0xff
		}
		a.Free(b)
		b = a.Allocate(size)
		check("reused", b, size)
		for i := range b {
			b[i] = byte(i)
		}
		g := a.Reallocate(2*size+1, b)
		if len(g) != 2*size+1 {
			t.Fatalf("grown: len %d, want %d", len(g), 2*size+1)
		}
		for i := range size {
			if g[i] != byte(i) {
				t.Fatalf("grown from %d: byte %d is %d, want %d", size, i, g[i], byte(i))
			}
		}
		for i := size; i < len(g); i++ {
			if g[i] != 0 {
				t.Fatalf("grown from %d: byte %d is %d, want 0", size, i, g[i])
			}
		}
		a.Free(g)
	}
	a.release()
	check("after release", a.Allocate(mapMin), mapMin)
}
