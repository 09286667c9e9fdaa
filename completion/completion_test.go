package completion

import (
	"bytes"
	"strings"
	"testing"
)

func sample() Command {
	return Command{Name: "tool", Subcommands: []Command{
		{Name: "get", Summary: "Fetch it: now\nsecond line", Flags: []Flag{{Name: "json", Usage: "it's JSON"}, {Name: "o", Usage: "output file", TakesValue: true}, {Name: "format", Usage: "how", TakesValue: true, Values: []string{"text", "json"}}, {Name: "only", Usage: "which", TakesValue: true, Values: []string{"a", "b"}, List: true}}},
		{Name: "db", Summary: "Manage", Subcommands: []Command{{Name: "sync", Summary: `back\slash`}}},
	}}
}

func TestWrite(t *testing.T) {
	for _, sh := range Shells {
		var b bytes.Buffer
		if err := Write(&b, sh, sample()); err != nil {
			t.Fatalf("%s: %v", sh, err)
		}
		out := b.String()
		for _, want := range map[string][]string{
			"bash": {`"db sync")`, `flags="--json -o --format --only"`, `vflags="-o --format --only"`, `"get|--format") values="text json" ;;`, `"get|--only") values="a b" list=1 ;;`, "complete -o default -F _tool tool"},
			"zsh":  {"#compdef tool", `'get:Fetch it\: now'`, `'--json:it'\''s JSON'`, `vflags="-o --format --only"`, `("get|--format") values=(text json) ;;`, `("get|--only") values=(a b) list=1 ;;`},
			"fish": {`-a get -d 'Fetch it: now'`, `-l json -d 'it\'s JSON'`, `-s o -r -d 'output file'`, `-l format -x -a 'text json' -d 'how'`, `-a sync -d 'back\\slash'`, `-l only -x -a '(__tool_list a b)' -d 'which'`},
		}[sh] {
			if !strings.Contains(out, want) {
				t.Errorf("%s script lacks %q:\n%s", sh, want, out)
			}
		}
		if strings.Contains(out, "second line") {
			t.Errorf("%s: a summary's second line leaked into the script", sh)
		}
	}
}

func TestWrite_Refuses(t *testing.T) {
	if err := Write(&bytes.Buffer{}, "powershell", sample()); err == nil || !strings.Contains(err.Error(), "unknown shell") {
		t.Fatalf("powershell: %v", err)
	}
	bad := sample()
	bad.Subcommands[0].Flags = append(bad.Subcommands[0].Flags, Flag{Name: "a b"})
	if err := Write(&bytes.Buffer{}, "bash", bad); err == nil || !strings.Contains(err.Error(), `flag name "a b"`) {
		t.Fatalf("a flag name with a space: %v", err)
	}
	bad = sample()
	bad.Subcommands[0].Flags[2].Values = []string{"text", "$(reboot)"}
	if err := Write(&bytes.Buffer{}, "fish", bad); err == nil || !strings.Contains(err.Error(), `value "$(reboot)"`) {
		t.Fatalf("a value that needs quoting: %v", err)
	}
	bad = sample()
	bad.Subcommands[1].Subcommands[0].Name = `x"; rm -rf ~; "`
	if err := Write(&bytes.Buffer{}, "zsh", bad); err == nil {
		t.Fatal("a command name that needs quoting was accepted")
	}
}
