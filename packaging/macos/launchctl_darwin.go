//go:build darwin

package macos

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
)

// NewLaunchctl returns the Launchctl that runs /bin/launchctl.
func NewLaunchctl() Launchctl { return execLaunchctl{} }

// execLaunchctl runs launchctl(1). It is stateless and safe for concurrent
// use, though launchd serialises operations on one job anyway.
type execLaunchctl struct{}

// run executes argv and returns its combined output; launchctl writes its
// errors to stdout or stderr depending on the subcommand and release.
func (execLaunchctl) run(ctx context.Context, argv []string) (string, error) {
	cmd := exec.CommandContext(ctx, "/bin/launchctl", argv[1:]...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return string(out), &ExitError{Argv: argv, Code: ee.ExitCode(), Output: string(out)}
		}
		return string(out), fmt.Errorf("run %s: %w", argv[0], err)
	}
	return string(out), nil
}

func (l execLaunchctl) Bootstrap(ctx context.Context, domain, plist string) error {
	_, err := l.run(ctx, BootstrapArgv(domain, plist))
	return err
}

func (l execLaunchctl) Bootout(ctx context.Context, target string) error {
	_, err := l.run(ctx, BootoutArgv(target))
	return err
}

func (l execLaunchctl) Print(ctx context.Context, target string) (string, error) {
	return l.run(ctx, PrintArgv(target))
}

func (l execLaunchctl) Kickstart(ctx context.Context, target string, kill bool) error {
	_, err := l.run(ctx, KickstartArgv(target, kill))
	return err
}

func (l execLaunchctl) PrintDisabled(ctx context.Context, domain string) (string, error) {
	return l.run(ctx, PrintDisabledArgv(domain))
}

func (l execLaunchctl) Enable(ctx context.Context, target string) error {
	_, err := l.run(ctx, EnableArgv(target))
	return err
}
