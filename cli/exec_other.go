//go:build !unix

package cli

import (
	"errors"
	"os"
	"os/exec"
)

// execProgram runs the program at path in this process's place where a
// process cannot be replaced: it exits with the program's exit code.
func execProgram(path string, argv, env []string) error {
	cmd := exec.Command(path, argv[1:]...)
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = env, os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if exit, ok := errors.AsType[*exec.ExitError](err); ok {
		os.Exit(exit.ExitCode())
	}
	if err == nil {
		os.Exit(0)
	}
	return err
}
