package macos

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"howett.net/plist"
)

// InstalledNovaHome returns the NOVA_HOME that the plist at path gives its
// job (EnvironmentVariables): the home the installed novad serves, which
// need not be the caller's. The error wraps fs.ErrNotExist when there is
// no plist, and says why otherwise (unreadable, no absolute NOVA_HOME).
func InstalledNovaHome(path string) (string, error) {
	top, err := readPlist(path)
	if err != nil {
		return "", err
	}
	env, _ := top["EnvironmentVariables"].(map[string]any)
	home, _ := env["NOVA_HOME"].(string)
	if !filepath.IsAbs(home) {
		return "", fmt.Errorf("%s: EnvironmentVariables has no absolute NOVA_HOME (got %q)", path, home)
	}
	return filepath.Clean(home), nil
}

// readPlist reads and decodes the plist at path (DecodePlist). The error
// wraps fs.ErrNotExist when there is none, and names path when it is not
// a property list.
func readPlist(path string) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	top, err := DecodePlist(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return top, nil
}

// DecodePlist decodes a property list whose top level is a dict, XML or
// binary (a user may have converted the file with plutil). Values are as
// howett.net/plist gives them: string, uint64 or int64, float64, bool,
// time.Time, []byte, []any and map[string]any.
func DecodePlist(b []byte) (map[string]any, error) {
	var top any
	if _, err := plist.Unmarshal(b, &top); err != nil {
		return nil, fmt.Errorf("not a property list: %w", err)
	}
	m, ok := top.(map[string]any)
	if !ok {
		return nil, errors.New("the property list's top level is not a dict")
	}
	return m, nil
}

// InstalledCommand returns the whole command line the plist at path gives
// its job (ProgramArguments, at least the program): the program may have
// moved since it was installed. The error wraps fs.ErrNotExist when there
// is no plist.
func InstalledCommand(path string) ([]string, error) {
	top, err := readPlist(path)
	if err != nil {
		return nil, err
	}
	raw, _ := top["ProgramArguments"].([]any)
	if len(raw) == 0 {
		return nil, fmt.Errorf("%s: no ProgramArguments", path)
	}
	argv := make([]string, 0, len(raw))
	for _, a := range raw {
		s, ok := a.(string)
		if !ok {
			return nil, fmt.Errorf("%s: ProgramArguments holds a %T, not a string", path, a)
		}
		argv = append(argv, s)
	}
	return argv, nil
}
