package export

import (
	"math/bits"
	"sync"
	"unsafe"
)

// poolAllocator is the Arrow allocator of one Writer. The Go allocator
// makes every buffer anew: the builders grow theirs by doubling, row
// group after row group, and the Parquet encoders make theirs for each
// column chunk, so a sixth of a run's allocated bytes were buffers freed
// a moment later. This one keeps the freed buffers, by power-of-two
// size, up to poolMax bytes, and hands them out again zeroed, as a new
// one would be. It answers as memory.GoAllocator does: 64-byte aligned,
// capacity equal to the size asked for.
type poolAllocator struct {
	mu   sync.Mutex
	free [64][][]byte
	// backing maps a buffer handed out to the slice it was cut from, so
	// Free can keep the whole of it.
	backing map[*byte][]byte
	kept    int
}

// poolMax bounds the bytes kept for reuse: about the buffers of a row
// group per split.
const poolMax = 64 << 20

const poolAlign = 64

func newPoolAllocator() *poolAllocator {
	return &poolAllocator{backing: map[*byte][]byte{}}
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
	var buf []byte
	if n := len(a.free[k]); n > 0 {
		buf = a.free[k][n-1]
		a.free[k] = a.free[k][:n-1]
		a.kept -= cap(buf)
		clear(buf)
	} else {
		buf = make([]byte, 1<<k+poolAlign)
	}
	shift := int(-uintptr(unsafe.Pointer(unsafe.SliceData(buf))) & (poolAlign - 1))
	out := buf[shift : shift+size : shift+size]
	a.backing[unsafe.SliceData(out)] = buf
	return out
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
	p := unsafe.SliceData(b[:cap(b)])
	buf, ok := a.backing[p]
	if !ok {
		return
	}
	delete(a.backing, p)
	if a.kept+cap(buf) > poolMax {
		return
	}
	k := class(cap(buf)-poolAlign+1) - 1
	a.free[k] = append(a.free[k], buf)
	a.kept += cap(buf)
}
