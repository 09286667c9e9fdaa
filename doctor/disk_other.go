//go:build !linux && !darwin

package doctor

func volumeFree(string) (uint64, error) { return 0, errNoFreeSpace }
