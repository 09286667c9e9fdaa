//go:build !darwin

package macos

import "context"

// NewLaunchctl returns a Launchctl whose every call fails with
// ErrUnsupported: launchd exists only on macOS. Plans, rendering and
// parsing still work here, which is what Linux CI and dry runs need.
func NewLaunchctl() Launchctl { return unsupported{} }

type unsupported struct{}

func (unsupported) Bootstrap(context.Context, string, string) error { return ErrUnsupported }
func (unsupported) Bootout(context.Context, string) error           { return ErrUnsupported }
func (unsupported) Print(context.Context, string) (string, error)   { return "", ErrUnsupported }
func (unsupported) Kickstart(context.Context, string, bool) error   { return ErrUnsupported }
func (unsupported) PrintDisabled(context.Context, string) (string, error) {
	return "", ErrUnsupported
}
func (unsupported) Enable(context.Context, string) error { return ErrUnsupported }
