package skill

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/nova-recall/nova/atomicfile"
	"github.com/nova-recall/nova/paths"
)

// FileMode is the mode of an installed SKILL.md: agents of the user read
// it, and it holds nothing private.
const FileMode fs.FileMode = 0o644

// Class is what a target's skill file is.
type Class string

// Classes of a target's skill file.
const (
	// ClassMissing: there is no SKILL.md (the directory may exist).
	ClassMissing Class = "missing"
	// ClassCurrent: the file is this template, whatever agents its last
	// line names.
	ClassCurrent Class = "current"
	// ClassOlder: a verified managed file of an older template version.
	ClassOlder Class = "managed-older"
	// ClassNewer: a verified managed file of a newer template version.
	ClassNewer Class = "managed-newer"
	// ClassOtherHome: a verified managed file of this template version
	// written for another Nova home (its commands set another NOVA_HOME)
	// or for another facade address (the home's facade.port changed
	// since): its agents would search another memory, or none.
	ClassOtherHome Class = "managed-other-home"
	// ClassCustomized: anything else: edited after install (the marker's
	// digest does not match), no marker, another skill's marker, or a
	// managed file of this version with other content.
	ClassCustomized Class = "customized"
	// ClassUnreadable: the file exists but cannot be read.
	ClassUnreadable Class = "unreadable"
	// ClassUnsafe: the skill directory or file is a symbolic link or not
	// what it should be, it resolves outside the root, the root is a link
	// to nothing, a file stands where a folder of its path should be, or
	// it (or the nearest of the agent's folders or the home above it that
	// exists) is another user's (see ownedHere). Never written.
	ClassUnsafe Class = "unsafe"
)

// State is the inspected state of a target's skill file.
type State struct {
	// Class classifies the file.
	Class Class `json:"classification"`
	// Exists is true when SKILL.md exists (or a non-file in its place).
	Exists bool `json:"exists"`
	// Managed is true when the file carries a verified marker of this
	// skill: Nova wrote it and nobody changed it since.
	Managed bool `json:"managed"`
	// InstalledVersion is the template version of a verified marker.
	InstalledVersion *int `json:"installedTemplateVersion"`
	// Detail explains the class in one line.
	Detail string `json:"detail,omitempty"`

	content []byte
}

// UpgradeAvailable reports whether the file differs from this template
// while being older, written for another home, or customized (so this
// template could apply).
func (s State) UpgradeAvailable() bool {
	switch s.Class {
	case ClassOlder, ClassOtherHome, ClassCustomized:
		return true
	}
	return false
}

// Inspect classifies t's skill file. It never writes.
func Inspect(t Target) State {
	if err := ownedHere(t); err != nil {
		_, lerr := os.Lstat(t.File())
		return State{Class: ClassUnsafe, Exists: lerr == nil, Detail: err.Error()}
	}
	if err := danglingRoot(t); err != nil {
		return State{Class: ClassUnsafe, Detail: err.Error()}
	}
	fi, err := os.Lstat(t.Dir())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return State{Class: ClassMissing}
	case errors.Is(err, syscall.ENOTDIR):
		// A file where a folder of the path should be: there is no skill
		// to read, and none can be written until the person moves it.
		return State{Class: ClassUnsafe, Detail: paths.NotAFolder(filepath.Dir(t.Dir())) + ": move it, then install"}
	case err != nil:
		return State{Class: ClassUnreadable, Exists: true, Detail: err.Error()}
	case fi.Mode()&fs.ModeSymlink != 0:
		return State{Class: ClassUnsafe, Exists: true, Detail: "refusing to write through symlinked skill path " + t.Dir()}
	case !fi.IsDir():
		return State{Class: ClassUnsafe, Exists: true, Detail: t.Dir() + " is not a directory"}
	}
	if err := contained(t); err != nil {
		return State{Class: ClassUnsafe, Exists: true, Detail: err.Error()}
	}
	fi, err = os.Lstat(t.File())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return State{Class: ClassMissing}
	case err != nil:
		return State{Class: ClassUnreadable, Exists: true, Detail: err.Error()}
	case fi.Mode()&fs.ModeSymlink != 0:
		return State{Class: ClassUnsafe, Exists: true, Detail: "refusing to write through symlinked skill path " + t.File()}
	case !fi.Mode().IsRegular():
		return State{Class: ClassUnsafe, Exists: true, Detail: t.File() + " is not a regular file"}
	}
	// Read as Lstat saw it, or refused: a named pipe swapped in since
	// would make a plain read wait for a writer.
	content, _, err := paths.ReadRegular(t.File(), 0)
	if err != nil {
		return State{Class: ClassUnreadable, Exists: true, Detail: err.Error()}
	}
	s := State{Exists: true, content: content}
	m, err := Parse(content)
	switch {
	case err != nil:
		s.Class, s.Detail = ClassCustomized, "no nova-managed-skill marker: not written by Nova, or the marker was removed"
		return s
	case m.ID != ID:
		s.Class, s.Detail = ClassCustomized, "the marker names another skill ("+m.ID+")"
		return s
	case !m.Verified:
		s.Class, s.Detail = ClassCustomized, "edited after install (the marker's digest does not match the content)"
		return s
	}
	s.Managed = true
	s.InstalledVersion = &m.Version
	home, facade := installedHome(content), installedFacade(content)
	switch {
	case sameTemplate(content, render(t.InstalledFor(), t.Home(), t.Facade())):
		s.Class, s.Detail = ClassCurrent, fmt.Sprintf("template version %d, unmodified", m.Version)
	case m.Version < TemplateVersion:
		s.Class, s.Detail = ClassOlder, fmt.Sprintf("unmodified template version %d; version %d is available", m.Version, TemplateVersion)
	case m.Version > TemplateVersion:
		s.Class, s.Detail = ClassNewer, fmt.Sprintf("unmodified template version %d, newer than this novactl's %d", m.Version, TemplateVersion)
	case (home != t.Home() || facade != t.Facade()) && sameTemplate(content, render(t.InstalledFor(), home, facade)):
		var why []string
		if home != t.Home() {
			why = append(why, fmt.Sprintf("its commands use NOVA_HOME %s; this novactl's is %s", homeName(home), homeName(t.Home())))
		}
		if facade != t.Facade() {
			why = append(why, fmt.Sprintf("it names the facade %s; this home's is %s", facadeName(facade), facadeName(t.Facade())))
		}
		s.Class, s.Detail = ClassOtherHome, strings.Join(why, "; ")
	default:
		s.Class, s.Detail = ClassCustomized, fmt.Sprintf("a managed template version %d with other content than this novactl's", m.Version)
	}
	return s
}

// ownedHere checks that the nearest folder of t's skill directory that
// exists is the user's that novactl runs as. Run as another user (sudo
// keeps HOME), install would leave folders and a file there that are no
// longer the agent's user's: their agent could not add its own skills to
// a skills folder Nova made, nor they update or remove Nova's. Only the
// agent's own folders and the home they lie in are judged: a root outside
// the home that does not exist yet (an agent variable naming a folder
// under /opt) is left to the write, as before.
func ownedHere(t Target) error {
	home := paths.UserHome(t.environ)
	if home != "" {
		home = filepath.Clean(home)
	}
	for p := t.Dir(); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(p) == p {
				return nil
			}
			continue
		}
		judged := p == t.Root || p == filepath.Dir(t.Root) || p == t.Dir() ||
			home != "" && (p == home || strings.HasPrefix(p, home+string(filepath.Separator)))
		if judged && paths.OwnedByAnotherUser(fi) {
			return fmt.Errorf("%s is owned by another user: run novactl skill as the user whose agents read it (not with sudo)", p)
		}
		return nil
	}
}

// danglingRoot reports a skills root that is a link to nothing (a
// dotfiles repository moved): writing would fail on it with "file
// exists", and creating the link's target would write where the person no
// longer keeps their files.
func danglingRoot(t Target) error {
	target, err := os.Readlink(t.Root)
	if err != nil {
		return nil // not a link (or missing): the write makes or uses it
	}
	if _, err := os.Stat(t.Root); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(t.Root), target)
	}
	return fmt.Errorf("%s is a link to %s, which does not exist: create that folder, or remove the link", t.Root, target)
}

// homeName names a home for a person: "" is the default.
func homeName(home string) string {
	if home == "" {
		return "the default ~/.nova"
	}
	return home
}

// facadeName names a facade address (see Target.Facade) for a person.
func facadeName(facade string) string {
	switch {
	case facade == "":
		return "at the default http://127.0.0.1:3036"
	case strings.HasSuffix(facade, ":0"):
		return "on a new port at each start (facade.port 0)"
	}
	return "at " + facade
}

// contained checks that t's skill directory resolves to a direct child of
// its (resolved) root. The root itself may be a symbolic link, as when
// the person keeps ~/.claude in a dotfiles repository.
func contained(t Target) error {
	root, err := filepath.EvalSymlinks(t.Root)
	if err != nil {
		return err
	}
	dir, err := filepath.EvalSymlinks(t.Dir())
	if err != nil {
		return err
	}
	if filepath.Dir(dir) != root || filepath.Base(dir) != ID {
		return fmt.Errorf("path escapes the skills root: %s resolves to %s", t.Dir(), dir)
	}
	return nil
}

// Action is what an operation does to a target.
type Action string

// Actions of install and uninstall.
const (
	ActCreate             Action = "create"
	ActAlreadyCurrent     Action = "already-current"
	ActUpgrade            Action = "upgrade"
	ActOverwrite          Action = "overwrite"
	ActPreserveNewer      Action = "preserve-newer"
	ActPreserveCustomized Action = "preserve-customized"
	ActPreserveUnreadable Action = "preserve-unreadable"
	ActRefuse             Action = "refuse"
	ActRemove             Action = "remove"
	ActNotInstalled       Action = "not-installed"
	ActKeepCustomized     Action = "keep-customized"
	ActKeepUnreadable     Action = "keep-unreadable"
)

// Writes reports whether the action changes the file system.
func (a Action) Writes() bool {
	switch a {
	case ActCreate, ActUpgrade, ActOverwrite, ActRemove:
		return true
	}
	return false
}

// Op is one planned install or uninstall of one target.
type Op struct {
	// Target is the skills root.
	Target Target
	// State is the file's state when the plan was made.
	State State
	// Action is what Apply will do.
	Action Action
	// Install is true for install, false for uninstall.
	Install bool
	// Force lets install overwrite customized and newer files (after a
	// backup).
	Force bool
	// Want is the content install writes.
	Want []byte
}

// PlanInstall inspects t and decides what install does.
func PlanInstall(t Target, force bool) *Op {
	op := &Op{Target: t, State: Inspect(t), Install: true, Force: force, Want: render(t.InstalledFor(), t.Home(), t.Facade())}
	op.Action = installAction(op.State, force)
	return op
}

// PlanUninstall inspects t and decides what uninstall does.
func PlanUninstall(t Target) *Op {
	op := &Op{Target: t, State: Inspect(t)}
	op.Action = uninstallAction(op.State)
	return op
}

func installAction(s State, force bool) Action {
	switch s.Class {
	case ClassMissing:
		return ActCreate
	case ClassCurrent:
		return ActAlreadyCurrent
	case ClassOlder, ClassOtherHome:
		// Nova's own unedited file: replacing it loses nothing (and a
		// backup is kept anyway).
		return ActUpgrade
	case ClassNewer:
		if force {
			return ActOverwrite
		}
		return ActPreserveNewer
	case ClassCustomized:
		if force {
			return ActOverwrite
		}
		return ActPreserveCustomized
	case ClassUnreadable:
		return ActPreserveUnreadable
	}
	return ActRefuse
}

func uninstallAction(s State) Action {
	switch {
	case s.Class == ClassMissing, s.Class == ClassUnsafe && !s.Exists:
		// Nothing to remove, even where nothing may be written.
		return ActNotInstalled
	case s.Class == ClassUnsafe:
		return ActRefuse
	case s.Class == ClassUnreadable:
		return ActKeepUnreadable
	case s.Managed:
		return ActRemove
	}
	return ActKeepCustomized
}

func (op *Op) replan(s State) Action {
	if op.Install {
		return installAction(s, op.Force)
	}
	return uninstallAction(s)
}

// Result is what Apply did.
type Result struct {
	// Result is one of installed, upgraded, overwritten, already-current,
	// preserved-newer, preserved-customized, preserved-unreadable,
	// removed, not-installed, kept-customized, kept-unreadable, refused,
	// changed-since-plan or failed.
	Result string `json:"result"`
	// Action is the action Apply took after re-inspecting the file; it
	// differs from the plan's when the file changed meanwhile.
	Action Action `json:"appliedAction"`
	// Backup is the copy of the replaced file, if any.
	Backup string `json:"backup,omitempty"`
	// RemovedDir is true when uninstall removed the emptied skill
	// directory.
	RemovedDir bool `json:"removedDir,omitempty"`
	// Err is set for refused, changed-since-plan and failed.
	Err error `json:"-"`
}

// passive maps the actions that write nothing to their result.
var passive = map[Action]string{
	ActAlreadyCurrent:     "already-current",
	ActPreserveNewer:      "preserved-newer",
	ActPreserveCustomized: "preserved-customized",
	ActPreserveUnreadable: "preserved-unreadable",
	ActNotInstalled:       "not-installed",
	ActKeepCustomized:     "kept-customized",
	ActKeepUnreadable:     "kept-unreadable",
}

// Backups says where Apply keeps copies of replaced files:
// <Root>/<Stamp>/<target>/SKILL.md.
type Backups struct {
	// Root is the backup directory, NOVA_HOME/state/backups/skills.
	Root string
	// Stamp names this run's subdirectory (paths.BackupStamp).
	Stamp string
	// Secure, when set, is called before a copy is saved: it makes the
	// home Root lies in private and refuses one where a link planted in
	// it would take the copy to another user (paths.Home.Secure).
	Secure func() error
}

// errChanged means the file changed between the plan and the write.
var errChanged = errors.New("changed since the plan was made; nothing was written (run the command again)")

// Apply carries out op. It inspects the file again first and acts only
// when the plan still holds, so a file edited after the plan is never
// overwritten; it checks once more just before the rename.
func (op *Op) Apply(b Backups) Result {
	fresh := Inspect(op.Target)
	action := op.replan(fresh)
	if action != op.Action || !bytes.Equal(fresh.content, op.State.content) || fresh.Exists != op.State.Exists {
		if r, ok := passive[action]; ok {
			return Result{Result: r, Action: action}
		}
		if action != ActRefuse {
			return Result{Result: "changed-since-plan", Action: action, Err: fmt.Errorf("%s: %w", op.Target.File(), errChanged)}
		}
	}
	if r, ok := passive[action]; ok {
		return Result{Result: r, Action: action}
	}
	if action == ActRefuse {
		return Result{Result: "refused", Action: action, Err: errors.New(fresh.Detail)}
	}
	if action == ActRemove {
		return op.remove(fresh)
	}
	return op.write(fresh, action, b)
}

func (op *Op) write(fresh State, action Action, b Backups) Result {
	t := op.Target
	fail := func(err error) Result { return Result{Result: "failed", Action: action, Err: err} }
	if err := os.MkdirAll(t.Root, 0o755); err != nil {
		return fail(err)
	}
	if err := os.Mkdir(t.Dir(), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return fail(err)
	}
	// The directory may have been swapped for a link since the check.
	if fi, err := os.Lstat(t.Dir()); err != nil {
		return fail(err)
	} else if !fi.IsDir() {
		return Result{Result: "refused", Action: ActRefuse, Err: errors.New("refusing to write through symlinked skill path " + t.Dir())}
	}
	if err := contained(t); err != nil {
		return Result{Result: "refused", Action: ActRefuse, Err: err}
	}
	// The last check runs on the synced temporary file, immediately before
	// the rename; so does the backup of what the rename replaces.
	var backup string
	var early *Result
	errLate := errors.New("changed since the plan")
	err := atomicfile.Write(t.File(), op.Want, FileMode, atomicfile.WithCheck(func(fs.FileInfo) error {
		last := Inspect(t)
		if last.Exists != fresh.Exists || !bytes.Equal(last.content, fresh.content) || last.Class == ClassUnsafe {
			r := Result{Result: "changed-since-plan", Action: action, Err: fmt.Errorf("%s: %w", t.File(), errChanged)}
			if p, ok := passive[op.replan(last)]; ok {
				r = Result{Result: p, Action: op.replan(last)}
			}
			early = &r
			return errLate
		}
		if fresh.Exists {
			var err error
			if backup, err = b.save(t, fresh.content); err != nil {
				return fmt.Errorf("back up %s: %w", t.File(), err)
			}
		}
		return nil
	}))
	if early != nil {
		return *early
	}
	if err != nil {
		return Result{Result: "failed", Action: action, Backup: backup, Err: err}
	}
	got, _, err := paths.ReadRegular(t.File(), 0)
	if err != nil || !bytes.Equal(got, op.Want) {
		return Result{Result: "failed", Action: action, Backup: backup, Err: fmt.Errorf("%s does not read back as written", t.File())}
	}
	r := map[Action]string{ActCreate: "installed", ActUpgrade: "upgraded", ActOverwrite: "overwritten"}[action]
	return Result{Result: r, Action: action, Backup: backup}
}

func (op *Op) remove(fresh State) Result {
	t := op.Target
	if err := atomicfile.Remove(t.File()); err != nil {
		return Result{Result: "failed", Action: ActRemove, Err: err}
	}
	r := Result{Result: "removed", Action: ActRemove}
	if err := os.Remove(t.Dir()); err == nil {
		r.RemovedDir = true
		_ = atomicfile.SyncDir(t.Root) // the skill file's removal is what matters
	}
	return r
}

// save copies content to the backup directory and returns the copy's path.
func (b Backups) save(t Target, content []byte) (string, error) {
	if b.Root == "" {
		return "", errors.New("no backup directory")
	}
	if b.Secure != nil {
		if err := b.Secure(); err != nil {
			return "", err
		}
	}
	stamp := b.Stamp
	if stamp == "" {
		stamp = paths.BackupStamp(time.Now())
	}
	dir := filepath.Join(b.Root, stamp, t.ID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, FileName)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	_, err = f.Write(content)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// A copy cut short (a full disk) is no backup: it would be found
		// where the replaced file is looked for. The folders go too when
		// they hold nothing else (os.Remove leaves one that does).
		os.Remove(path)
		os.Remove(dir)
		os.Remove(filepath.Dir(dir))
		return "", err
	}
	return path, atomicfile.SyncDir(dir)
}

// Diff returns a unified diff of what the operation changes, "" when it
// changes nothing. For a preserved file it shows how the file differs
// from this template, which --force would write.
func (op *Op) Diff() string {
	path := op.Target.File()
	switch {
	case op.Action == ActRemove:
		return UnifiedDiff(path, "/dev/null", op.State.content, nil)
	case !op.Install:
		return ""
	case op.Action == ActCreate:
		return UnifiedDiff("/dev/null", path, nil, op.Want)
	case op.Action == ActUpgrade, op.Action == ActOverwrite, op.Action == ActPreserveCustomized, op.Action == ActPreserveNewer:
		return UnifiedDiff(path, path, op.State.content, op.Want)
	}
	return ""
}
