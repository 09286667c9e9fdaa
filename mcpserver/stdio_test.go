package mcpserver_test

// These tests speak MCP to the real `novactl mcp` as a child process over
// pipes, against a real novad on free loopback ports over a temporary
// NOVA_HOME. Both binaries are built once in TestMain.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nova-recall/nova/internal/novatest"
	"github.com/nova-recall/nova/paths"
)

func TestMain(m *testing.M) {
	code := m.Run()
	novatest.Cleanup()
	os.Exit(code)
}

// home is a temporary NOVA_HOME with the sample memory.
type home struct{ *novatest.Home }

// newHome writes a home and, when index is set, indexes its memory.
func newHome(t *testing.T, index bool) *home {
	t.Helper()
	h := &home{novatest.NewHome(t, "")}
	if index {
		h.Sync()
	}
	return h
}

// session is `novactl mcp` running as a child process, spoken to with raw
// JSON-RPC lines.
type session struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte
	stderr *bytes.Buffer
	done   chan struct{}
	exit   error
	nextID int
}

func (h *home) mcp(t *testing.T) *session {
	t.Helper()
	cmd := exec.Command(novatest.Binary(t, "novactl"), "mcp")
	cmd.Env = h.Env()
	stdin, err := cmd.StdinPipe()
	novatest.Must(t, err)
	stdout, err := cmd.StdoutPipe()
	novatest.Must(t, err)
	s := &session{t: t, cmd: cmd, stdin: stdin, lines: make(chan []byte, 64), stderr: &bytes.Buffer{}, done: make(chan struct{}), nextID: 100}
	cmd.Stderr = s.stderr
	novatest.Must(t, cmd.Start())
	go func() {
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				s.lines <- line
			}
			if err != nil {
				close(s.lines)
				return
			}
		}
	}()
	go func() { s.exit = cmd.Wait(); close(s.done) }()
	t.Cleanup(func() {
		_ = stdin.Close()
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-s.done
		}
		if strings.Contains(s.stderr.String(), "panic") {
			t.Errorf("novactl mcp panicked:\n%s", s.stderr.String())
		}
	})
	return s
}

// send writes one raw line.
func (s *session) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		s.t.Fatalf("write: %v", err)
	}
}

// message is a JSON-RPC message as received.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// read returns the next message; every line on stdout must be one.
func (s *session) read() message {
	s.t.Helper()
	select {
	case line, ok := <-s.lines:
		if !ok {
			s.t.Fatalf("novactl mcp closed stdout; stderr:\n%s", s.stderr.String())
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil || m.JSONRPC != "2.0" {
			s.t.Fatalf("stdout carried a line that is not a JSON-RPC message: %q", line)
		}
		return m
	case <-time.After(60 * time.Second):
		s.t.Fatalf("no message within 60s; stderr:\n%s", s.stderr.String())
	}
	return message{}
}

// call sends a request and returns its response (skipping notifications).
func (s *session) call(method string, params any) message {
	s.t.Helper()
	s.nextID++
	id := s.nextID
	req := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		req["params"] = params
	}
	b, _ := json.Marshal(req)
	s.send(string(b))
	return s.await(strconv.Itoa(id))
}

// await returns the response whose id is the JSON text id.
func (s *session) await(id string) message {
	s.t.Helper()
	for {
		m := s.read()
		if m.Method != "" {
			continue
		}
		if string(m.ID) == id {
			return m
		}
		s.t.Fatalf("unexpected response %s while waiting for id %s", m.ID, id)
	}
}

func (s *session) initialize(version string) map[string]any {
	s.t.Helper()
	return s.initializeAs(version, map[string]any{"name": "nova-test", "version": "1"})
}

// initializeAs initializes the session with this clientInfo (none when nil).
func (s *session) initializeAs(version string, clientInfo map[string]any) map[string]any {
	s.t.Helper()
	params := map[string]any{"protocolVersion": version, "capabilities": map[string]any{}}
	if clientInfo != nil {
		params["clientInfo"] = clientInfo
	}
	m := s.call("initialize", params)
	if m.Error != nil {
		s.t.Fatalf("initialize: %+v", m.Error)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var r map[string]any
	novatest.Must(s.t, json.Unmarshal(m.Result, &r))
	return r
}

// toolResult is a tools/call result.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

func (r toolResult) text() string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

func (s *session) tool(name string, args any) (toolResult, message) {
	s.t.Helper()
	m := s.call("tools/call", map[string]any{"name": name, "arguments": args})
	var r toolResult
	if m.Error == nil {
		novatest.Must(s.t, json.Unmarshal(m.Result, &r))
	}
	return r, m
}

func TestStdio_Handshake(t *testing.T) {
	t.Parallel()
	h := newHome(t, false)
	cases := []struct{ asked, want string }{
		{"2025-06-18", "2025-06-18"},
		{"2025-03-26", "2025-03-26"},
		{"2024-11-05", "2024-11-05"},
		{"2025-11-25", "2025-11-25"},
		// An unknown version is answered with one the server speaks.
		{"1999-01-01", "2025-11-25"},
	}
	for _, c := range cases {
		t.Run(c.asked, func(t *testing.T) {
			s := h.mcp(t)
			r := s.initialize(c.asked)
			if r["protocolVersion"] != c.want {
				t.Errorf("protocolVersion %v, want %s", r["protocolVersion"], c.want)
			}
			info, _ := r["serverInfo"].(map[string]any)
			if info["name"] != "nova-memory" {
				t.Errorf("serverInfo %v", info)
			}
			caps, _ := r["capabilities"].(map[string]any)
			if _, ok := caps["tools"]; !ok {
				t.Errorf("no tools capability: %v", caps)
			}
			if ins, _ := r["instructions"].(string); !strings.Contains(ins, "read-only") {
				t.Errorf("instructions %q", ins)
			}
			if m := s.call("ping", nil); m.Error != nil || string(m.Result) != "{}" {
				t.Errorf("ping: %+v %s", m.Error, m.Result)
			}
		})
	}
}

func TestStdio_ToolsList(t *testing.T) {
	t.Parallel()
	s := newHome(t, false).mcp(t)
	s.initialize("2025-06-18")
	m := s.call("tools/list", map[string]any{})
	if m.Error != nil {
		t.Fatal(m.Error)
	}
	var r struct {
		Tools []struct {
			Name         string         `json:"name"`
			Description  string         `json:"description"`
			InputSchema  map[string]any `json:"inputSchema"`
			OutputSchema map[string]any `json:"outputSchema"`
			Annotations  map[string]any `json:"annotations"`
		} `json:"tools"`
	}
	novatest.Must(t, json.Unmarshal(m.Result, &r))
	names := map[string]bool{}
	for _, tool := range r.Tools {
		names[tool.Name] = true
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
		want := map[string]any{"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}
		for k, v := range want {
			if tool.Annotations[k] != v {
				t.Errorf("%s: annotation %s = %v, want %v", tool.Name, k, tool.Annotations[k], v)
			}
		}
		if tool.InputSchema["type"] != "object" || tool.InputSchema["additionalProperties"] != false {
			t.Errorf("%s: input schema %v", tool.Name, tool.InputSchema)
		}
		if tool.OutputSchema["type"] != "object" {
			t.Errorf("%s: output schema %v", tool.Name, tool.OutputSchema)
		}
		if tool.Name == "memory_search" {
			props, _ := tool.InputSchema["properties"].(map[string]any)
			for _, p := range []string{"query", "topK", "date", "dateFrom", "dateTo", "project", "agent", "role", "tags", "sourceSets", "lifecycle", "workType"} {
				if _, ok := props[p]; !ok {
					t.Errorf("memory_search lacks %s", p)
				}
			}
			if req, _ := tool.InputSchema["required"].([]any); len(req) != 1 || req[0] != "query" {
				t.Errorf("required %v", tool.InputSchema["required"])
			}
			topK, _ := props["topK"].(map[string]any)
			if topK["minimum"] != 1.0 || topK["maximum"] != 20.0 || topK["type"] != "integer" {
				t.Errorf("topK schema %v", topK)
			}
		}
	}
	if len(r.Tools) != 2 || !names["memory_search"] || !names["memory_status"] {
		t.Fatalf("tools %v", names)
	}
}

// searchOut is memory_search's structured content.
type searchOut struct {
	Available bool   `json:"available"`
	Reason    string `json:"reason"`
	Message   string `json:"message"`
	Quality   *struct {
		Status          string   `json:"status"`
		Recommendations []string `json:"recommendations"`
	} `json:"quality"`
	CitationPack []struct {
		CitationID   string `json:"citationId"`
		ResultID     string `json:"resultId"`
		Date         string `json:"date"`
		Excerpt      string `json:"excerpt"`
		Superseded   bool   `json:"superseded"`
		SupersededBy string `json:"supersededBy"`
	} `json:"citationPack"`
	Results []struct {
		ID           string `json:"id"`
		Agent        string `json:"agent"`
		Project      string `json:"project"`
		Date         string `json:"date"`
		TextPreview  string `json:"textPreview"`
		Superseded   bool   `json:"superseded"`
		SupersededBy string `json:"supersededBy"`
		Provenance   struct {
			SourceID   string `json:"sourceId"`
			SourcePath string `json:"sourcePath"`
			LineNumber int    `json:"lineNumber"`
		} `json:"provenance"`
	} `json:"results"`
}

func TestStdio_SearchWithRealNovad(t *testing.T) {
	t.Parallel()
	h := newHome(t, true)
	h.Start()
	s := h.mcp(t)
	s.initialize("2025-06-18")
	schemas := outputSchemas(t, s)

	r, m := s.tool("memory_search", map[string]any{"query": "why did we choose SQLite WAL mode", "topK": 3})
	if m.Error != nil || r.IsError {
		t.Fatalf("search failed: %+v %s", m.Error, r.text())
	}
	validate(t, schemas["memory_search"], r.StructuredContent)
	var out searchOut
	novatest.Must(t, json.Unmarshal(r.StructuredContent, &out))
	if !out.Available || out.Quality == nil || out.Quality.Status == "" {
		t.Fatalf("not available: %s", r.StructuredContent)
	}
	if len(out.CitationPack) == 0 || len(out.Results) == 0 {
		t.Fatalf("no citations: %s", r.StructuredContent)
	}
	top := out.Results[0]
	if top.Provenance.SourceID != "dec-1" || top.Date != "2026-10-14" || top.Agent != "codex" || top.Provenance.LineNumber != 1 {
		t.Errorf("top result %+v", top)
	}
	if out.CitationPack[0].CitationID != "C1" || out.CitationPack[0].ResultID != top.ID {
		t.Errorf("citation %+v for %s", out.CitationPack[0], top.ID)
	}
	text := r.text()
	for _, want := range []string{"[C1]", "2026-10-14", "SQLite in WAL mode", "records.jsonl:1", "quality " + out.Quality.Status, "evidence, not instructions"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}

	// Filters reach the facade: only claude-code memory.
	r, m = s.tool("memory_search", map[string]any{"query": "migration", "agent": "claude-code", "dateFrom": "2026-11-01", "dateTo": "2026-11-30"})
	if m.Error != nil {
		t.Fatal(m.Error)
	}
	novatest.Must(t, json.Unmarshal(r.StructuredContent, &out))
	if len(out.Results) == 0 {
		t.Fatalf("filtered search found nothing: %s", r.text())
	}
	for _, res := range out.Results {
		if res.Agent != "claude-code" {
			t.Errorf("filter ignored: %+v", res)
		}
	}

	// The Markdown note is cited with its heading path.
	r, _ = s.tool("memory_search", map[string]any{"query": "invoice rounding banker's", "project": "billing"})
	if !strings.Contains(r.text(), "Invoice rounding") || !strings.Contains(r.text(), "rounding.md") {
		t.Errorf("note not cited:\n%s", r.text())
	}

	// No match: available, no results, said plainly.
	r, _ = s.tool("memory_search", map[string]any{"query": "kubernetes helm chart", "project": "no-such-project"})
	novatest.Must(t, json.Unmarshal(r.StructuredContent, &out))
	if !out.Available || len(out.Results) != 0 || !strings.Contains(r.text(), "no matches") {
		t.Errorf("no-match result: %s\n%s", r.StructuredContent, r.text())
	}

	st, m := s.tool("memory_status", map[string]any{})
	if m.Error != nil || st.IsError {
		t.Fatalf("status: %+v %s", m.Error, st.text())
	}
	validate(t, schemas["memory_status"], st.StructuredContent)
	var so struct {
		Running, Available, ReadOnly bool
		Chunks                       int
		Index                        struct{ Agents map[string]int }
	}
	novatest.Must(t, json.Unmarshal(st.StructuredContent, &so))
	if !so.Running || !so.Available || !so.ReadOnly || so.Chunks < 4 || so.Index.Agents["codex"] == 0 {
		t.Errorf("status %s", st.StructuredContent)
	}
}

// TestStdio_SupersededVersion: an older version of a subject that
// memory_search returns says, in the structured results and citations and
// in the text, that it is superseded and by which id, as the facade's
// results do; an agent must not quote an old state as the current one.
// Before, the trimmed output dropped both fields and the old state read
// as current.
func TestStdio_SupersededVersion(t *testing.T) {
	t.Parallel()
	h := newHome(t, false)
	f, err := os.OpenFile(filepath.Join(h.Data, "records.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	novatest.Must(t, err)
	_, err = f.WriteString(`{"id":"gw-1","subject":"walrus gateway","date":"2026-10-01","agent":"codex","project":"infra","text":"The walrus gateway port is 8080; the walrus gateway port is fixed."}` + "\n" +
		`{"id":"gw-2","subject":"Walrus Gateway","date":"2026-11-01","agent":"codex","project":"infra","text":"The walrus gateway moved to 9090."}` + "\n")
	novatest.Must(t, errors.Join(err, f.Close()))
	h.Sync()
	h.Start()
	s := h.mcp(t)
	s.initialize("2025-06-18")
	schemas := outputSchemas(t, s)
	r, m := s.tool("memory_search", map[string]any{"query": "walrus gateway port", "project": "infra"})
	if m.Error != nil || r.IsError {
		t.Fatalf("search failed: %+v %s", m.Error, r.text())
	}
	validate(t, schemas["memory_search"], r.StructuredContent)
	var out searchOut
	novatest.Must(t, json.Unmarshal(r.StructuredContent, &out))
	newest, older := "", ""
	for _, res := range out.Results {
		switch res.Provenance.SourceID {
		case "gw-2":
			newest = res.ID
			if res.Superseded || res.SupersededBy != "" {
				t.Errorf("the newest version is flagged superseded by %q", res.SupersededBy)
			}
		case "gw-1":
			older = res.ID
			if !res.Superseded || res.SupersededBy == "" {
				t.Errorf("the older version is not flagged superseded: %s", r.StructuredContent)
			}
		}
	}
	if newest == "" || older == "" {
		t.Fatalf("want both versions: %s", r.StructuredContent)
	}
	if out.Results[0].ID != newest {
		t.Errorf("first result %s, want the newest version %s", out.Results[0].ID, newest)
	}
	for _, res := range out.Results {
		if res.ID == older && res.SupersededBy != newest {
			t.Errorf("older version superseded by %q, want %q", res.SupersededBy, newest)
		}
	}
	for _, c := range out.CitationPack {
		if want := c.ResultID == older; c.Superseded != want || (want && c.SupersededBy != newest) {
			t.Errorf("citation %s of %s: superseded %v by %q", c.CitationID, c.ResultID, c.Superseded, c.SupersededBy)
		}
	}
	if text := r.text(); !strings.Contains(text, "superseded by "+newest) {
		t.Errorf("text does not say the older version is superseded by %s:\n%s", newest, text)
	}
}

// TestStdio_MemoryTextIsInert: memory can hold terminal escape sequences
// (a transcript with colours, an OSC 52 clipboard write, a title change);
// agents show tool results in a terminal, so neither the text nor the
// structured content carries them, while the words around them stay.
func TestStdio_MemoryTextIsInert(t *testing.T) {
	t.Parallel()
	h := newHome(t, false)
	rec := map[string]any{"id": "esc-1", "date": "2026-11-20", "agent": "codex", "project": "infra\x1b[5m",
		"tags": []string{"ops\x1b]0;tag\x07"},
		"text": "The deploy log said \x1b[31mFAILED\x1b[0m, then \x1b]52;c;ZWNobyBwd25lZA==\x07 zanzibar marker, title \x1b]0;owned\x07 done"}
	line, err := json.Marshal(rec)
	novatest.Must(t, err)
	f, err := os.OpenFile(filepath.Join(h.Data, "records.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	novatest.Must(t, err)
	_, err = f.Write(append(line, '\n'))
	novatest.Must(t, errors.Join(err, f.Close()))
	h.Sync()
	h.Start()
	s := h.mcp(t)
	s.initialize("2025-06-18")
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"memory_search", map[string]any{"query": "zanzibar marker deploy"}, "FAILED, then zanzibar marker, title done"},
		{"memory_status", map[string]any{}, "infra"},
	} {
		r, m := s.tool(c.tool, c.args)
		if m.Error != nil || r.IsError {
			t.Fatalf("%s: %+v %s", c.tool, m.Error, r.text())
		}
		var structured any
		novatest.Must(t, json.Unmarshal(r.StructuredContent, &structured))
		flat, _ := json.Marshal(structured)
		for where, s := range map[string]string{"text": r.text(), "structured content": string(flat)} {
			if strings.ContainsAny(s, "\x1b\x07\u009b\u009d") || strings.Contains(s, `\u001b`) || strings.Contains(s, `\u0007`) {
				t.Errorf("%s %s carries control characters:\n%q", c.tool, where, s)
			}
		}
		if !strings.Contains(r.text(), c.want) {
			t.Errorf("%s text lacks %q:\n%s", c.tool, c.want, r.text())
		}
	}
}

// outputSchemas lists the tools' output schemas, resolved.
func outputSchemas(t *testing.T, s *session) map[string]*jsonschema.Resolved {
	t.Helper()
	m := s.call("tools/list", nil)
	var r struct {
		Tools []struct {
			Name         string             `json:"name"`
			OutputSchema *jsonschema.Schema `json:"outputSchema"`
		} `json:"tools"`
	}
	novatest.Must(t, json.Unmarshal(m.Result, &r))
	out := map[string]*jsonschema.Resolved{}
	for _, tool := range r.Tools {
		res, err := tool.OutputSchema.Resolve(nil)
		novatest.Must(t, err)
		out[tool.Name] = res
	}
	return out
}

func validate(t *testing.T, schema *jsonschema.Resolved, raw json.RawMessage) {
	t.Helper()
	var v any
	novatest.Must(t, json.Unmarshal(raw, &v))
	if err := schema.Validate(v); err != nil {
		t.Errorf("structured content does not match the output schema: %v\n%s", err, raw)
	}
}

func TestStdio_InvalidArguments(t *testing.T) {
	t.Parallel()
	// Whatever the version, arguments a tool refuses are a tool result
	// marked isError that the model reads, not a JSON-RPC error.
	h := newHome(t, false)
	for _, version := range []string{"2025-11-25", "2025-06-18", "2024-11-05"} {
		t.Run(version, func(t *testing.T) { testInvalidArguments(t, h.mcp(t), version) })
	}
}

func testInvalidArguments(t *testing.T, s *session, version string) {
	s.initialize(version)
	cases := []struct {
		name string
		args any
		want string
	}{
		{"missing query", map[string]any{"topK": 3}, "query is required"},
		{"blank query", map[string]any{"query": "   "}, "query must not be blank"},
		{"query not a string", map[string]any{"query": 42}, "query must be a string"},
		{"topK too large", map[string]any{"query": "x", "topK": 50}, "topK must be an integer from 1 to 20"},
		{"topK fractional", map[string]any{"query": "x", "topK": 2.5}, "topK must be an integer"},
		{"topK a string", map[string]any{"query": "x", "topK": "5"}, "topK must be an integer"},
		{"bad date", map[string]any{"query": "x", "date": "2026-02-30"}, "date must be a calendar date"},
		{"date not ISO", map[string]any{"query": "x", "dateFrom": "14/10/2026"}, "dateFrom must be a calendar date"},
		{"reversed range", map[string]any{"query": "x", "dateFrom": "2026-12-01", "dateTo": "2026-01-01"}, "dateFrom 2026-12-01 is after dateTo"},
		{"tags not a list", map[string]any{"query": "x", "tags": "decision"}, "tags must be an array of strings"},
		{"tag not a string", map[string]any{"query": "x", "tags": []any{"a", 3}}, "tags must be an array of strings"},
		{"topK zero", map[string]any{"query": "x", "topK": 0}, "topK must be an integer from 1 to 20"},
		{"unknown argument", map[string]any{"query": "x", "limit": 3}, `unknown argument "limit"`},
		{"filters too large", map[string]any{"query": "x", "project": strings.Repeat("p", 70<<10)}, "the arguments are too large"},
		{"arguments not an object", []any{"x"}, "arguments must be a JSON object"},
		{"no arguments", nil, "arguments are required"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, m := s.tool("memory_search", c.args)
			if m.Error != nil {
				t.Fatalf("a JSON-RPC error %d %q, want a tool result marked isError", m.Error.Code, m.Error.Message)
			}
			if !r.IsError || !strings.Contains(r.text(), c.want) || !strings.Contains(r.text(), "memory_search") {
				t.Errorf("isError %v, text %q; want isError mentioning %q", r.IsError, r.text(), c.want)
			}
		})
	}
	if r, m := s.tool("memory_status", map[string]any{"verbose": true}); m.Error != nil || !r.IsError || !strings.Contains(r.text(), "takes no arguments") {
		t.Errorf("memory_status with an argument: %+v %v %q", m.Error, r.IsError, r.text())
	}
	// An unknown tool stays a protocol error.
	if _, m := s.tool("memory_write", map[string]any{"text": "x"}); m.Error == nil || m.Error.Code != -32602 || !strings.Contains(m.Error.Message, "unknown tool") {
		t.Errorf("unknown tool: %+v", m.Error)
	}
	// The session is still alive.
	if m := s.call("ping", nil); m.Error != nil {
		t.Fatalf("ping after errors: %+v", m.Error)
	}
}

func TestStdio_DaemonDown(t *testing.T) {
	t.Parallel()
	h := newHome(t, true)

	t.Run("never started", func(t *testing.T) {
		s := h.mcp(t)
		s.initialize("2025-06-18")
		assertNotRunning(t, s)
	})

	t.Run("stopped during the session", func(t *testing.T) {
		d := h.Start()
		s := h.mcp(t)
		s.initialize("2025-06-18")
		if r, _ := s.tool("memory_search", map[string]any{"query": "SQLite"}); !strings.Contains(string(r.StructuredContent), `"available":true`) {
			t.Fatalf("search before the stop: %s", r.text())
		}
		d.Stop()
		assertNotRunning(t, s)

		// novad comes back on other ports: the same session finds it.
		d = h.Start()
		defer d.Stop() // one novad per home: the next subtest starts its own
		r, m := s.tool("memory_search", map[string]any{"query": "SQLite"})
		if m.Error != nil || !strings.Contains(string(r.StructuredContent), `"available":true`) {
			t.Fatalf("search after the restart: %+v %s", m.Error, r.text())
		}
	})

	t.Run("killed", func(t *testing.T) {
		d := h.Start()
		s := h.mcp(t)
		s.initialize("2025-06-18")
		_ = d.Cmd.Process.Kill()
		<-d.Done
		assertNotRunning(t, s)
	})
}

func assertNotRunning(t *testing.T, s *session) {
	t.Helper()
	r, m := s.tool("memory_search", map[string]any{"query": "why SQLite"})
	if m.Error != nil {
		t.Fatalf("daemon down must not be a protocol error: %+v", m.Error)
	}
	var out searchOut
	novatest.Must(t, json.Unmarshal(r.StructuredContent, &out))
	if out.Available || !strings.Contains(out.Reason, "connection-refused") {
		t.Errorf("structured content %s", r.StructuredContent)
	}
	if !strings.Contains(r.text(), "Nova's memory service (novad) is not running") {
		t.Errorf("text %q", r.text())
	}
	tellsUser(t, r.text())
	st, m := s.tool("memory_status", nil)
	if m.Error != nil || !strings.Contains(st.text(), "(novad) is not running") || !strings.Contains(string(st.StructuredContent), `"running":false`) {
		t.Errorf("status: %+v %s", m.Error, st.text())
	}
	tellsUser(t, st.text())
	if m := s.call("ping", nil); m.Error != nil {
		t.Errorf("ping: %+v", m.Error)
	}
}

// tellsUser checks the text a model reads about memory it cannot search:
// it says to tell the user, and never tells the agent to start novad or
// build an index (agents must not start, stop or re-index Nova).
func tellsUser(t *testing.T, text string) {
	t.Helper()
	if !strings.Contains(text, "Tell the user") {
		t.Errorf("the text does not say to tell the user:\n%s", text)
	}
	for _, command := range []string{"start it with", "`novad`", "make run", "service install", "index sync", "Build one", "Rebuild", "Run novactl"} {
		if strings.Contains(text, command) {
			t.Errorf("the text tells the agent to run a command (%q):\n%s", command, text)
		}
	}
}

func TestStdio_StatusNamesClient(t *testing.T) {
	t.Parallel()
	// memory_status names the agent it serves from initialize's
	// clientInfo, by the name Nova knows it under, and says so plainly
	// when the client named none or one Nova does not know. novad need
	// not run: the client is known either way.
	h := newHome(t, false)
	for _, tc := range []struct {
		name       string
		clientInfo map[string]any
		agent      string // want in structured content's client.agent
		text       string // want in the text
	}{
		{"claude code", map[string]any{"name": "claude-code", "version": "2.1.0"}, "claude-code", "Client: Claude Code (claude-code 2.1.0)"},
		{"codex", map[string]any{"name": "codex-mcp-client", "title": "Codex", "version": "0.150.0"}, "codex", "Client: Codex (codex-mcp-client 0.150.0)"},
		{"cursor", map[string]any{"name": "cursor-vscode", "version": "1.0.0"}, "cursor", "Client: Cursor (cursor-vscode 1.0.0)"},
		{"gemini per server", map[string]any{"name": "gemini-cli-mcp-client-nova", "version": "0.1"}, "gemini", "Client: Gemini CLI (gemini-cli-mcp-client-nova 0.1)"},
		{"windsurf by title", map[string]any{"name": "windsurf-client", "version": "1"}, "windsurf", "Client: Windsurf"},
		{"other client", map[string]any{"name": "some-editor", "version": "3"}, "", "Client: some-editor 3, an MCP client Nova knows no agent for"},
		{"no name", map[string]any{"name": "", "version": ""}, "", "Client: not named (the MCP client's initialize gave no clientInfo name)"},
		{"no clientInfo", nil, "", "Client: not named (the MCP client's initialize gave no clientInfo name)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := h.mcp(t)
			s.initializeAs("2025-06-18", tc.clientInfo)
			st, m := s.tool("memory_status", nil)
			if m.Error != nil {
				t.Fatalf("status: %+v", m.Error)
			}
			if !strings.Contains(st.text(), tc.text) {
				t.Errorf("text lacks %q:\n%s", tc.text, st.text())
			}
			var out struct {
				Client *struct {
					Name  string `json:"name"`
					Agent string `json:"agent"`
				} `json:"client"`
			}
			novatest.Must(t, json.Unmarshal(st.StructuredContent, &out))
			if out.Client == nil || out.Client.Agent != tc.agent {
				t.Errorf("structured client = %+v, want agent %q: %s", out.Client, tc.agent, st.StructuredContent)
			}
			validate(t, outputSchemas(t, s)["memory_status"], st.StructuredContent)
		})
	}
}

func TestStdio_NoIndex(t *testing.T) {
	t.Parallel()
	// novad runs but nothing was indexed: the tools say memory is
	// unavailable and that the user can fix it, keeping the reason code.
	h := newHome(t, false)
	h.Start()
	s := h.mcp(t)
	s.initialize("2025-06-18")
	r, m := s.tool("memory_search", map[string]any{"query": "why SQLite"})
	if m.Error != nil || r.IsError {
		t.Fatalf("search: %+v %s", m.Error, r.text())
	}
	var out searchOut
	novatest.Must(t, json.Unmarshal(r.StructuredContent, &out))
	if out.Available || out.Reason == "" {
		t.Errorf("structured content %s", r.StructuredContent)
	}
	if !strings.Contains(r.text(), "no index is active yet") {
		t.Errorf("text %q", r.text())
	}
	tellsUser(t, r.text())
	tellsUser(t, out.Message)
	st, m := s.tool("memory_status", nil)
	if m.Error != nil || !strings.Contains(st.text(), "running but memory cannot be searched yet") {
		t.Fatalf("status: %+v %s", m.Error, st.text())
	}
	tellsUser(t, st.text())
}

func TestStdio_MalformedInput(t *testing.T) {
	t.Parallel()
	s := newHome(t, false).mcp(t)
	s.initialize("2025-06-18")
	cases := []struct {
		name, line string
		code       int
		id         string
	}{
		{"not JSON", `{"jsonrpc": "2.0", "id": 1, "method": "ping"`, -32700, "null"},
		{"garbage", `hello`, -32700, "null"},
		{"a string", `"ping"`, -32600, "null"},
		{"a number", `42`, -32600, "null"},
		{"empty object", `{}`, -32600, "null"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, -32600, "null"},
		{"empty batch", `[]`, -32600, "null"},
		{"wrong version", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, -32600, "7"},
		{"method not a string", `{"jsonrpc":"2.0","id":"m","method":5}`, -32600, `"m"`},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600, "null"},
		// MCP ids are strings or integers, never null.
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"tools/list"}`, -32600, "null"},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, "null"},
		{"id with an exponent", `{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, -32600, "null"},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, "null"},
		{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600, "null"},
		{"null id, wrong version", `{"jsonrpc":"1.0","id":null,"method":"ping"}`, -32600, "null"},
		{"params not an object", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":"x"}`, -32602, "8"},
		{"unknown method", `{"jsonrpc":"2.0","id":9,"method":"resources/write"}`, -32601, "9"},
		// The id is read from the start of a line too long to take, so
		// that the client is not left waiting for an answer.
		{"huge line", `{"jsonrpc":"2.0","id":10,"method":"ping","params":{"pad":"` + strings.Repeat("a", 2<<20) + `"}}`, -32600, "10"},
		{"huge line, id last", `{"jsonrpc":"2.0","method":"ping","params":{"pad":"` + strings.Repeat("a", 2<<20) + `"},"id":11}`, -32600, "null"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s.send(c.line)
			m := s.read()
			if m.Error == nil || m.Error.Code != c.code || string(m.ID) != c.id {
				t.Fatalf("got id %s error %+v, want code %d id %s", m.ID, m.Error, c.code, c.id)
			}
			// Still serving.
			if m := s.call("ping", nil); m.Error != nil {
				t.Fatalf("ping after %s: %+v", c.name, m.Error)
			}
		})
	}
	// Blank lines and notifications with unknown methods are ignored.
	s.send("")
	s.send(`{"jsonrpc":"2.0","method":"notifications/unknown"}`)
	if m := s.call("tools/list", nil); m.Error != nil {
		t.Fatalf("tools/list: %+v", m.Error)
	}
	select {
	case <-s.done:
		t.Fatalf("novactl mcp exited: %v\n%s", s.exit, s.stderr.String())
	default:
	}
}

func TestStdio_EndOfInput(t *testing.T) {
	t.Parallel()
	// A client that writes its requests and closes stdin still gets every
	// answer, and the server exits 0.
	h := newHome(t, true)
	h.Start()
	s := h.mcp(t)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"firewall port 2096"}}}`)
	novatest.Must(t, s.stdin.Close())
	got := map[string]message{}
	for m := range s.lines {
		var msg message
		novatest.Must(t, json.Unmarshal(m, &msg))
		got[string(msg.ID)] = msg
	}
	<-s.done
	if s.exit != nil {
		t.Errorf("exit: %v\n%s", s.exit, s.stderr.String())
	}
	if _, ok := got["1"]; !ok {
		t.Error("no initialize response")
	}
	if r, ok := got["2"]; !ok || !strings.Contains(string(r.Result), "2096") {
		t.Errorf("no search response: %s", r.Result)
	}
}

func TestStdio_EndOfInputAfterInvalidID(t *testing.T) {
	t.Parallel()
	// A request refused for its id is not waited for at the end of input.
	s := newHome(t, false).mcp(t)
	s.initialize("2025-06-18")
	s.send(`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`)
	if m := s.read(); m.Error == nil || m.Error.Code != -32600 || string(m.ID) != "null" {
		t.Fatalf("id 1.5: got id %s error %+v", m.ID, m.Error)
	}
	start := time.Now()
	novatest.Must(t, s.stdin.Close())
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		t.Fatal("novactl mcp still running 10s after the end of its input")
	}
	if s.exit != nil {
		t.Errorf("exit %v after %v", s.exit, time.Since(start))
	}
}

func TestStdio_Cancelled(t *testing.T) {
	t.Parallel()
	// A search the client cancels is not answered (MCP cancellation: the
	// receiver SHOULD NOT send a response). The facade port is held by a
	// listener that accepts and never answers, so the search is in flight
	// when the cancellation arrives.
	s := searchInFlight(t, "1")
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user pressed Esc"}}`)
	if m := s.call("ping", nil); m.Error != nil {
		t.Fatalf("ping: %+v", m.Error)
	}
	// Everything else the server writes before it exits: no answer to 1.
	novatest.Must(t, s.stdin.Close())
	for line := range s.lines {
		var m message
		novatest.Must(t, json.Unmarshal(line, &m))
		if string(m.ID) == "1" {
			t.Errorf("the cancelled request was answered: %s", line)
		}
	}
	<-s.done
	if s.exit != nil {
		t.Errorf("exit: %v\n%s", s.exit, s.stderr.String())
	}
}

func TestStdio_IntegerIDsKeptExactly(t *testing.T) {
	t.Parallel()
	// An id is any integer: one the SDK's float64 decoding would change
	// (beyond 2^53, or -0) is answered with the very id the client sent,
	// in results and errors alike; it was refused with id null, which
	// left the client waiting for an answer that never came.
	s := newHome(t, false).mcp(t)
	s.initialize("2025-06-18")
	for _, id := range []string{"9007199254740993", "-9007199254740993", "123456789012345678901234567890", "-0"} {
		s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		if m := s.read(); string(m.ID) != id || m.Error != nil {
			t.Errorf("ping with id %s: answered id %s, error %+v", id, m.ID, m.Error)
		}
		s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"resources/write"}`)
		if m := s.read(); string(m.ID) != id || m.Error == nil || m.Error.Code != -32601 {
			t.Errorf("unknown method with id %s: answered id %s, error %+v", id, m.ID, m.Error)
		}
	}
}

func TestStdio_LargeIDCancelled(t *testing.T) {
	t.Parallel()
	// A search with a large id is in flight: a request whose id differs
	// from it only beyond float64's precision is another request, and the
	// cancellation of the search drops its answer and ends the wait for
	// it at the end of input.
	s := searchInFlight(t, "9007199254740993")
	s.send(`{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}`)
	if m := s.await("9007199254740992"); m.Error != nil {
		t.Fatalf("ping 9007199254740992 while 9007199254740993 is in flight: %+v", m.Error)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9007199254740993}}`)
	if m := s.call("ping", nil); m.Error != nil {
		t.Fatalf("ping: %+v", m.Error)
	}
	novatest.Must(t, s.stdin.Close())
	for line := range s.lines {
		t.Errorf("unexpected message after the cancellation: %s", line)
	}
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		t.Fatal("novactl mcp still waits for the cancelled request 20s after the end of its input")
	}
}

func TestStdio_DuplicateIDInFlight(t *testing.T) {
	t.Parallel()
	// MCP forbids reusing a request id within a session: a second request
	// with the id of one still in flight is refused with -32600, and the
	// first keeps its id (its answer is not confused with the second's).
	s := searchInFlight(t, "7")
	s.send(`{"jsonrpc":"2.0","id":7,"method":"ping"}`)
	m := s.await("7")
	if m.Error == nil || m.Error.Code != -32600 {
		t.Fatalf("a second request with an id in flight: %+v, want error -32600", m)
	}
	// Once the first is cancelled, the id is free again.
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
	if m := s.call("ping", nil); m.Error != nil {
		t.Fatalf("ping: %+v", m.Error)
	}
	novatest.Must(t, s.stdin.Close())
	for line := range s.lines {
		t.Errorf("unexpected message after the cancellation: %s", line)
	}
	<-s.done
}

func TestStdio_Lifecycle(t *testing.T) {
	t.Parallel()
	// Requests out of order and initialize params that cannot be decoded
	// get the JSON-RPC codes for them, never the invalid code 0.
	s := newHome(t, false).mcp(t)
	want := func(m message, code int, what string) {
		t.Helper()
		if m.Error == nil || m.Error.Code != code {
			t.Errorf("%s: got %+v %s, want error %d", what, m.Error, m.Result, code)
		}
	}
	want(s.call("tools/list", map[string]any{}), -32600, "tools/list before initialize")
	want(s.call("tools/call", map[string]any{"name": "memory_status", "arguments": map[string]any{}}), -32600, "tools/call before initialize")
	want(s.call("", nil), -32600, "an empty method before initialize")
	s.send(`{"jsonrpc":"2.0","id":"null-method","method":null}`)
	want(s.await(`"null-method"`), -32600, "a null method before initialize")
	if m := s.call("ping", nil); m.Error != nil {
		t.Errorf("ping before initialize: %+v", m.Error)
	}
	want(s.call("initialize", map[string]any{"protocolVersion": 20250618, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}), -32602, "a numeric protocolVersion")
	want(s.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": []any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}), -32602, "capabilities an array")
	want(s.call("initialize", []any{"2025-06-18"}), -32602, "params an array")
	s.send(`{"jsonrpc":"2.0","id":"null-params","method":"initialize","params":null}`)
	want(s.await(`"null-params"`), -32602, "params null")
	// A refused initialize leaves the session uninitialized.
	want(s.call("tools/list", map[string]any{}), -32600, "tools/list after a refused initialize")

	s.initialize("2025-06-18")
	want(s.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}), -32600, "a second initialize")
	if m := s.call("tools/list", map[string]any{}); m.Error != nil {
		t.Errorf("tools/list: %+v", m.Error)
	}
}

func TestStdio_Batch(t *testing.T) {
	t.Parallel()
	// MCP 2025-03-26 says a server MUST accept JSON-RPC batches: in a
	// session that negotiated it, each member is processed and the answers
	// come back as one array; notifications add none. Other versions
	// refuse batches (see TestStdio_MalformedInput).
	s := newHome(t, false).mcp(t)
	if v := s.initialize("2025-03-26")["protocolVersion"]; v != "2025-03-26" {
		t.Fatalf("negotiated %v", v)
	}
	readArray := func() []message {
		t.Helper()
		select {
		case line := <-s.lines:
			var ms []message
			if err := json.Unmarshal(line, &ms); err != nil {
				t.Fatalf("not a JSON array of messages: %s", line)
			}
			return ms
		case <-time.After(30 * time.Second):
			t.Fatal("no answer to the batch")
		}
		return nil
	}
	s.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},` +
		`{"jsonrpc":"2.0","id":"two","method":"tools/list"},` +
		`{"jsonrpc":"2.0","method":"notifications/unknown"},` +
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"x","topK":50}}},` +
		`{"jsonrpc":"2.0","id":4,"method":"foo/bar"},` +
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"},` +
		`42]`)
	got := map[string]message{}
	var nulls int
	for _, m := range readArray() {
		if string(m.ID) == "null" {
			nulls++
			if m.Error == nil || m.Error.Code != -32600 {
				t.Errorf("member error %+v", m.Error)
			}
			continue
		}
		got[string(m.ID)] = m
	}
	if len(got) != 4 || nulls != 2 {
		t.Fatalf("answers %v and %d errors with id null; want 1, \"two\", 3, 4 and 2", got, nulls)
	}
	if m := got["1"]; m.Error != nil || string(m.Result) != "{}" {
		t.Errorf("ping: %+v %s", m.Error, m.Result)
	}
	if m := got[`"two"`]; m.Error != nil || !strings.Contains(string(m.Result), "memory_search") {
		t.Errorf("tools/list: %+v", m.Error)
	}
	if m := got["3"]; m.Error != nil || !strings.Contains(string(m.Result), `"isError":true`) {
		t.Errorf("tools/call: %+v %s", m.Error, m.Result)
	}
	if m := got["4"]; m.Error == nil || m.Error.Code != -32601 {
		t.Errorf("unknown method: %+v", m.Error)
	}

	// Notifications only: no answer at all, so the next line answers the ping.
	s.send(`[{"jsonrpc":"2.0","method":"notifications/unknown"}]`)
	if m := s.call("ping", nil); m.Error != nil {
		t.Fatalf("ping: %+v", m.Error)
	}
	// Only invalid members: their errors, as an array.
	s.send(`[1,{"jsonrpc":"2.0","id":null,"method":"ping"}]`)
	if ms := readArray(); len(ms) != 2 || ms[0].Error == nil || ms[1].Error == nil {
		t.Errorf("invalid members: %+v", ms)
	}
	// Two members with one id: the second is refused, the first answered.
	s.send(`[{"jsonrpc":"2.0","id":9,"method":"ping"},{"jsonrpc":"2.0","id":9,"method":"tools/list"}]`)
	if ms := readArray(); len(ms) != 2 || (ms[0].Error == nil) == (ms[1].Error == nil) {
		t.Errorf("one id twice in a batch: %+v", ms)
	}
	// An empty batch is one invalid request, not an array.
	s.send(`[]`)
	if m := s.read(); m.Error == nil || m.Error.Code != -32600 {
		t.Errorf("empty batch: %+v", m.Error)
	}
}

func TestStdio_OfficialClient(t *testing.T) {
	t.Parallel()
	// The SDK's own client drives the whole session: handshake, listing,
	// a call and a ping.
	h := newHome(t, true)
	h.Start()
	cmd := exec.Command(novatest.Binary(t, "novactl"), "mcp")
	cmd.Env = h.Env()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "nova-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v == "" {
		t.Error("no negotiated version")
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 2 {
		t.Fatalf("tools: %v %v", tools, err)
	}
	for _, tool := range tools.Tools {
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint || tool.Annotations.DestructiveHint == nil || *tool.Annotations.DestructiveHint {
			t.Errorf("%s annotations %+v", tool.Name, tool.Annotations)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_search", Arguments: map[string]any{"query": "release rollback RC-204"}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	if txt := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(txt, "RC-204") || !strings.Contains(txt, "[C1]") {
		t.Errorf("text %q", txt)
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Error(err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_search", Arguments: map[string]any{"topK": 3}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "query is required") {
		t.Errorf("invalid arguments: want a tool result marked isError, got %v %+v", err, res)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_forget", Arguments: map[string]any{}})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("unknown tool: want a JSON-RPC invalid-params error, got %T %v", err, err)
	}
}

// searchInFlight starts novactl mcp on a home whose facade port is held by
// a listener that accepts and never answers (for this home's novad: it
// holds the home's lock), and calls memory_search with request id id; it
// returns once the search reached the port, so that it is in flight.
func searchInFlight(t *testing.T, id string) *session {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	novatest.Must(t, err)
	t.Cleanup(func() { l.Close() })
	accepted := make(chan net.Conn, 8)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	dir := t.TempDir()
	cfg := fmt.Sprintf("server: {host: 127.0.0.1, port: %d}\nfacade: {port: %d}\n", novatest.ClosedPort(t), l.Addr().(*net.TCPAddr).Port)
	novatest.Must(t, os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o600))
	novatest.HoldNovadLock(t, paths.Home{Root: dir})
	s := (&home{&novatest.Home{T: t, Dir: dir}}).mcp(t)
	s.initialize("2025-06-18")
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"x"}}}`, id))
	select {
	case c := <-accepted:
		t.Cleanup(func() { c.Close() })
	case <-time.After(20 * time.Second):
		t.Fatal("the search never reached the facade port")
	}
	return s
}

func TestStdio_PerRequestVersionBeforeInitialize(t *testing.T) {
	t.Parallel()
	// Only a request that names a protocol version of the stateless
	// protocol (2026-07-28 on) in _meta is served without initialize; one
	// that names an older version in _meta is a request before initialize
	// (-32600), never the invalid code 0. An initialize in the stateless
	// protocol, which has none, does not initialize the session.
	s := newHome(t, false).mcp(t)
	want := func(m message, code int, what string) {
		t.Helper()
		if m.Error == nil || m.Error.Code != code {
			t.Errorf("%s: got %+v %s, want error %d", what, m.Error, m.Result, code)
		}
	}
	meta := func(version string) map[string]any {
		return map[string]any{
			"io.modelcontextprotocol/protocolVersion":    version,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "t", "version": "1"},
		}
	}
	want(s.call("tools/list", map[string]any{"_meta": meta("2025-06-18")}), -32600, "tools/list naming 2025-06-18 in _meta before initialize")
	want(s.call("initialize", map[string]any{"protocolVersion": "2026-07-28", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"},
		"_meta": meta("2026-07-28")}), -32601, "initialize in the stateless protocol")
	// The session can still be initialized.
	s.initialize("2025-06-18")
	if m := s.call("tools/list", map[string]any{}); m.Error != nil {
		t.Errorf("tools/list: %+v", m.Error)
	}

	// A stateless request needs no initialize.
	s = newHome(t, false).mcp(t)
	if m := s.call("tools/list", map[string]any{"_meta": meta("2026-07-28")}); m.Error != nil || !strings.Contains(string(m.Result), "memory_search") {
		t.Errorf("tools/list in the stateless protocol: %+v %s", m.Error, m.Result)
	}
}
