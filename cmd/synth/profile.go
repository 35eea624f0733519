package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfiles starts the CPU profile into cpu and arranges the
// allocation profile into mem ("" for none); the function it returns
// stops both and writes them. They exist because costs are found where
// a profile puts them, on the real command, not on a benchmark's guess.
func startProfiles(cpu, mem string) (stop func() error, err error) {
	var cf *os.File
	if cpu != "" {
		if cf, err = os.Create(cpu); err != nil {
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(cf); err != nil {
			return nil, errors.Join(fmt.Errorf("--cpuprofile %s: %w", cpu, err), cf.Close())
		}
	}
	return func() error {
		var errs []error
		if cf != nil {
			pprof.StopCPUProfile()
			if err := cf.Close(); err != nil {
				errs = append(errs, fmt.Errorf("--cpuprofile %s: %w", cpu, err))
			}
		}
		if mem != "" {
			errs = append(errs, writeHeapProfile(mem))
		}
		return errors.Join(errs...)
	}, nil
}

// writeHeapProfile writes the allocations since the start (alloc_space
// and alloc_objects in pprof) and what is live after a collection.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--memprofile: %w", err)
	}
	runtime.GC()
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		return errors.Join(fmt.Errorf("--memprofile %s: %w", path, err), f.Close())
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--memprofile %s: %w", path, err)
	}
	return nil
}
