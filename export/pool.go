package export

import (
	"math/bits"
	"sync"
	"unsafe"
)

// poolAllocator is the Arrow allocator of one Writer. A row group being
// built was most of a run's live heap (2,048 rows of messages and tool
// lists, in buffers the builders grow by doubling), and the Go allocator
// made every buffer anew: a sixth of a run's allocated bytes, and, since
// the collector lets the heap grow to a multiple of what is live, twice
// their size in memory. This one takes the large buffers from the
// operating system, outside the Go heap where the platform allows
// (mapBuffer), and returns them when freed; it keeps the smaller freed
// buffers by power-of-two size, up to poolMax bytes, and hands them out
// again zeroed, as a new one would be. It
// answers as memory.GoAllocator does: 64-byte aligned, capacity equal to
// the size asked for. The buffers hold no Go pointers, so the collector
// need not see them; release returns the kept ones when the writer ends.
type poolAllocator struct {
	mu   sync.Mutex
	free [64][]pooled
	// out maps a buffer handed out to the block it was cut from, so Free
	// can keep or return the whole of it.
	out  map[*byte]pooled
	kept int
}

// pooled is one block: from the Go heap, or mapped (unmapped when
// freed).
type pooled struct {
	buf    []byte
	mapped bool
}

const (
	// poolMax bounds the bytes kept for reuse.
	poolMax = 16 << 20
	// mapMin is the smallest block taken from the operating system:
	// smaller ones would waste most of a page.
	mapMin    = 64 << 10
	poolAlign = 64
)

func newPoolAllocator() *poolAllocator {
	return &poolAllocator{out: map[*byte]pooled{}}
}

// class is the smallest k with 1<<k >= size.
func class(size int) int { return bits.Len(uint(max(size, 1) - 1)) }

func (a *poolAllocator) Allocate(size int) []byte {
	if size == 0 {
		return []byte{}
	}
	k := class(size)
	a.mu.Lock()
	defer a.mu.Unlock()
	var p pooled
	if n := len(a.free[k]); n > 0 {
		p = a.free[k][n-1]
		a.free[k] = a.free[k][:n-1]
		a.kept -= cap(p.buf)
		clear(p.buf)
	} else if buf, ok := mapBlock(k); ok {
		p = pooled{buf: buf, mapped: true}
	} else {
		p = pooled{buf: make([]byte, 1<<k+poolAlign)}
	}
	shift := int(-uintptr(unsafe.Pointer(unsafe.SliceData(p.buf))) & (poolAlign - 1))
	out := p.buf[shift : shift+size : shift+size]
	a.out[unsafe.SliceData(out)] = p
	return out
}

// mapBlock maps a block of 1<<k bytes when it is large enough to.
func mapBlock(k int) ([]byte, bool) {
	if 1<<k < mapMin {
		return nil, false
	}
	return mapBuffer(1 << k)
}

func (a *poolAllocator) Reallocate(size int, b []byte) []byte {
	if cap(b) >= size {
		return b[:size]
	}
	out := a.Allocate(size)
	copy(out, b)
	a.Free(b)
	return out
}

func (a *poolAllocator) Free(b []byte) {
	if cap(b) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	ptr := unsafe.SliceData(b[:cap(b)])
	p, ok := a.out[ptr]
	if !ok {
		return
	}
	delete(a.out, ptr)
	if p.mapped {
		// Returned at once rather than kept: a kept block stays resident
		// whole, while a new one is resident only as far as it is
		// written, and the builders double their buffers, so half of
		// the last one is never written.
		unmapBuffer(p.buf)
		return
	}
	if a.kept+cap(p.buf) > poolMax {
		return
	}
	k := class(cap(p.buf)-poolAlign+1) - 1
	a.free[k] = append(a.free[k], p)
	a.kept += cap(p.buf)
}

// release drops the kept blocks, for the collector, when the writer
// ends. Buffers still handed out (none, once the writer's builders are
// released) stay valid.
func (a *poolAllocator) release() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.free[:])
	a.kept = 0
}
