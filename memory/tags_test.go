package memory

import (
	"slices"
	"testing"
)

// TestInferTagsNegatedIncident: a text that says nothing went wrong ("no
// errors", "didn't crash", "bug-free", "没有报错") is no incident, while
// the same words unnegated, or negated in another clause, still are.
func TestInferTagsNegatedIncident(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Deployed v2 to staging. No errors.", []string{"general"}},
		{"The nightly import ran without any failure", []string{"general"}},
		{"The service didn't crash overnight", []string{"general"}},
		{"A bug-free release at last", []string{"general"}},
		{"0 errors, 0 warnings", []string{"general"}},
		{"No exception was thrown", []string{"general"}},
		{"部署完成，没有报错", []string{"general"}},
		{"升级后没有任何故障", []string{"general"}},
		{"无宕机，服务正常", []string{"general"}},
		// Unnegated, or the negation belongs to another clause.
		{"No, the deploy failed again", []string{"incident"}},
		{"No tests were run and the build failed", []string{"coding", "incident"}},
		{"No errors in staging but production crashed", []string{"incident"}},
		{"Not sure why the import failed", []string{"incident"}},
		{"没有报错，但是服务宕机了", []string{"incident"}},
		// Not recovered is still an incident.
		{"服务还没有恢复", []string{"incident"}},
	} {
		if got := InferTags(tc.text, nil, false, ""); !slices.Equal(got, tc.want) {
			t.Errorf("InferTags(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestInferTagsCodeIdentifiers: error, exception and panic in code name
// types and functions (Go's error, Python's Exception), not something that
// went wrong: in a fenced block or an inline code span they infer no
// incident, unless they label a message ("panic: ...", "Error: ...").
func TestInferTagsCodeIdentifiers(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Parse returns the value:\n```go\nfunc Parse(s string) (int, error) {\n\treturn 0, nil\n}\n```", []string{"coding"}},
		{"Use `errors.Is` to compare wrapped values", []string{"general"}},
		{"Wrap it in ``panic(err)`` only in main", []string{"general"}},
		{"~~~python\ntry:\n    run()\nexcept Exception as e:\n    log(e)\n~~~", []string{"general"}},
		// Messages in code blocks, and the words outside them, still count.
		{"The job died:\n```\npanic: runtime error: index out of range [3]\n```", []string{"coding", "incident"}},
		{"```\nError: connect ECONNREFUSED 127.0.0.1:5432\n```", []string{"incident"}},
		{"Use `errors.Is`; the import error is still open", []string{"incident"}},
		{"An unclosed fence\n```\nerror", []string{"general"}},
		{"`a` error `b`", []string{"incident"}},
	} {
		if got := InferTags(tc.text, nil, false, ""); !slices.Equal(got, tc.want) {
			t.Errorf("InferTags(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestInferTagsStoredVocabulary: a stored tag that spells one of the
// inferred vocabulary in other capitals ("Incident", "TASK") is that
// tag, so the work type and a tags filter see it; other stored tags keep
// their spelling.
func TestInferTagsStoredVocabulary(t *testing.T) {
	got := InferTags("nothing to infer", []string{"Incident", " TASK ", "ProjectX", "incident"}, false, "")
	if want := []string{"ProjectX", "incident", "task"}; !slices.Equal(got, want) {
		t.Errorf("InferTags = %v, want %v", got, want)
	}
	if w := InferWorkType(got); w != "incident" {
		t.Errorf("work type %q, want incident", w)
	}
}

// TestInferTagsCJKFalseFriends: a longer word that holds a CJK trigger but
// means something else (任务栏 the taskbar, 决策树 a decision tree, 经验值
// experience points) infers nothing from it.
func TestInferTagsCJKFalseFriends(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"任务栏图标不见了", []string{"general"}},
		{"用决策树做分类", []string{"general"}},
		{"角色的经验值翻倍", []string{"general"}},
		{"任务栏图标不见了，任务还没完成", []string{"task"}},
		{"这次的决策是回滚", []string{"decision", "lesson"}},
	} {
		if got := InferTags(tc.text, nil, false, ""); !slices.Equal(got, tc.want) {
			t.Errorf("InferTags(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestInferTagsErrorDesign: a text about how errors are handled, worded or
// coded ("error handling", "error messages", "exception handling") tells of
// no incident; an error that happened does.
func TestInferTagsErrorDesign(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Improve the error messages of the importer", []string{"general"}},
		{"Refactor the error-handling of the parser", []string{"coding"}},
		{"Document the error codes the API returns", []string{"general"}},
		{"Exception handling in the worker follows the guide", []string{"general"}},
		{"The error rate spiked after the deploy", []string{"incident"}},
		{"error messages flooded the log after the deploy failed", []string{"incident"}},
		{"Hit an error: handling of the queue stopped", []string{"incident"}},
	} {
		if got := InferTags(tc.text, nil, false, ""); !slices.Equal(got, tc.want) {
			t.Errorf("InferTags(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}
