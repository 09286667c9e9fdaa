package packaging

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/nova-recall/nova/lockfile"
	"github.com/nova-recall/nova/paths"
)

// Token is the internal token file of one NOVA_HOME, which uninstalling
// novad's job removes. The zero Token names no file and removes nothing.
type Token struct {
	// Home is the NOVA_HOME the token belongs to: the one the installed
	// novad serves.
	Home string `json:"home"`
	// File is Home/state/internal-token.
	File string `json:"file"`
	// Lock is Home's novad lock, held by whichever novad serves Home.
	Lock string `json:"lock"`
}

// HomeToken is the Token of NOVA_HOME root.
func HomeToken(root string) Token {
	h := paths.Home{Root: root}
	return Token{Home: root, File: h.TokenFile(), Lock: h.DaemonLock()}
}

// RemoveStep is the plan step of Remove; ok is false for the zero Token.
func (t Token) RemoveStep() (s Step, ok bool) {
	if t.File == "" {
		return Step{}, false
	}
	return Step{Kind: StepRemove, Path: t.File, When: fmt.Sprintf("if present and no novad holds %s: the internal token of NOVA_HOME %s, the home the installed novad serves", t.Lock, t.Home)}, true
}

// Remove removes the token file once novad's job has stopped. While a
// process still holds t.Lock, another novad (run in a terminal, or by a
// second service definition) serves t.Home and the token is that novad's,
// so it is kept. A missing file is not an error. logf receives one line
// for what was done.
func (t Token) Remove(logf func(format string, args ...any)) error {
	if t.File == "" {
		return nil
	}
	if t.Lock != "" && lockfile.Held(t.Lock) {
		logf("kept %s: a novad still serves NOVA_HOME %s (it holds %s)", t.File, t.Home, t.Lock)
		return nil
	}
	switch err := os.Remove(t.File); {
	case err == nil:
		logf("removed %s", t.File)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("remove %s: %w", t.File, err)
	}
	return nil
}
