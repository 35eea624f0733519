//go:build linux || darwin || freebsd

package export

import "syscall"

// mapBuffer takes n zeroed bytes from the operating system, outside the
// Go heap, page-aligned.
func mapBuffer(n int) ([]byte, bool) {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	return b, err == nil
}

func unmapBuffer(b []byte) { _ = syscall.Munmap(b) }
