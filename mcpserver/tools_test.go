package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/nova-recall/nova/agents"
	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/client"
	"github.com/nova-recall/nova/mcpserver/agentconf"
)

// fakeBackend answers like novad would, without one.
type fakeBackend struct {
	resp   *api.SearchResponse
	status int
	err    error
	got    api.SearchBody
}

func (f *fakeBackend) Search(_ context.Context, body api.SearchBody) (*api.SearchResponse, int, error) {
	f.got = body
	return f.resp, f.status, f.err
}

func (f *fakeBackend) FacadeHealth(context.Context) (*api.FacadeHealth, error) {
	if f.err != nil {
		return nil, f.err
	}
	return &api.FacadeHealth{Available: false, Reason: api.ReasonIndexNotLoaded, ReadOnly: true}, nil
}

func (f *fakeBackend) Stats(context.Context) (*api.Stats, error) { return nil, errors.New("no stats") }

// connect runs a server on in-memory transports and returns a client
// session.
func connect(t *testing.T, opts Options) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New(opts).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func textOf(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func str(s string) *string { return &s }

func bigResponse(n int) *api.SearchResponse {
	r := &api.SearchResponse{SchemaVersion: 2, Available: true, Query: "q"}
	r.Quality = api.Quality{Status: "weak", NeedsMoreEvidence: true, MissingTerms: []string{"helm"}, Recommendations: []string{"add an exact identifier"}}
	for i := range n {
		id := fmt.Sprintf("r%d", i)
		long := strings.Repeat("迁移后定时任务失败 ", 100) // 3 bytes a character: hits the cap
		r.Results = append(r.Results, api.Result{ID: id, Score: 1.0 / float64(i+1), TextPreview: long, Date: str("2026-01-02"),
			Agent: str("codex"), Source: str("codex"), Provenance: api.Provenance{SourceID: id, SourcePath: str("/x.jsonl"), LineNumber: i + 1}})
		r.CitationPack = append(r.CitationPack, api.Citation{CitationID: fmt.Sprintf("C%d", i+1), Rank: i + 1, ResultID: id, Score: 1.0 / float64(i+1), Excerpt: long, Date: str("2026-01-02")})
	}
	return r
}

func TestSearch_TextIsCompact(t *testing.T) {
	f := &fakeBackend{resp: bigResponse(20), status: http.StatusOK}
	cs := connect(t, Options{Connect: func() (Backend, error) { return f, nil }})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolSearch, Arguments: map[string]any{"query": "q", "topK": 20, "tags": []string{"a"}, "lifecycle": []string{"canonical"}}})
	if err != nil {
		t.Fatal(err)
	}
	text := textOf(res)
	if len(text) > MaxTextBytes {
		t.Errorf("text is %d bytes, cap %d", len(text), MaxTextBytes)
	}
	for _, want := range []string{"[C1] 2026-01-02 · codex · score 1.000", "needs more evidence", "Missing terms: helm", "Recommendations: add an exact identifier", "[C20]"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q", want)
		}
	}
	b, _ := json.Marshal(res.StructuredContent)
	if len(b) > 32<<10 {
		t.Errorf("structured content is %d bytes", len(b))
	}
	if f.got.TopK != 20 || f.got.Tags[0] != "a" || f.got.Lifecycle[0] != "canonical" || f.got.RemainingBudgetMs != int(DefaultCallTimeout.Milliseconds()) {
		t.Errorf("request %+v", f.got)
	}
}

func TestSearch_Unavailable(t *testing.T) {
	cases := []struct {
		name   string
		f      *fakeBackend
		conn   error
		want   string
		reason string
	}{
		{"index not loaded", &fakeBackend{resp: api.Unavailable("q", 8, api.ReasonIndexNotLoaded), status: 200}, nil, "no index is active yet. Tell the user", api.ReasonIndexNotLoaded},
		{"busy", &fakeBackend{resp: api.Unavailable("q", 8, api.ReasonCapacityExhausted), status: 429}, nil, "busy", api.ReasonCapacityExhausted},
		{"timeout", &fakeBackend{err: context.DeadlineExceeded}, nil, "did not answer in time", "rag-external-unavailable:timeout"},
		{"configuration", nil, errors.New("server.port: must be a TCP port"), "configuration could not be loaded", "rag-external-unavailable:configuration"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cs := connect(t, Options{Connect: func() (Backend, error) {
				if c.conn != nil {
					return nil, c.conn
				}
				return c.f, nil
			}})
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolSearch, Arguments: map[string]any{"query": "q"}})
			if err != nil {
				t.Fatalf("a protocol error: %v", err)
			}
			if !strings.Contains(textOf(res), c.want) {
				t.Errorf("text %q lacks %q", textOf(res), c.want)
			}
			b, _ := json.Marshal(res.StructuredContent)
			if !strings.Contains(string(b), `"available":false`) || !strings.Contains(string(b), c.reason) {
				t.Errorf("structured %s", b)
			}
		})
	}
}

func TestSearch_FacadeRefusal(t *testing.T) {
	f := &fakeBackend{resp: api.Unavailable("q", 8, "dateRange.from is after dateRange.to"), status: http.StatusUnprocessableEntity}
	cs := connect(t, Options{Connect: func() (Backend, error) { return f, nil }})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolSearch, Arguments: map[string]any{"query": "q"}})
	if err != nil || !res.IsError || !strings.Contains(textOf(res), "novad refused the search") {
		t.Fatalf("err %v, result %+v", err, res)
	}
}

// TestSearch_ArgumentsTooLarge: filters that make the search body larger
// than novad reads are the caller's to shorten, not a failure of novad
// for the user to fix.
func TestSearch_ArgumentsTooLarge(t *testing.T) {
	// What novad answers to such a body: 413 with an unavailable envelope.
	f := &fakeBackend{resp: api.Unavailable("", 8, api.ReasonInvalidRequest), status: http.StatusRequestEntityTooLarge}
	cs := connect(t, Options{Connect: func() (Backend, error) { return f, nil }})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolSearch,
		Arguments: map[string]any{"query": "q", "project": strings.Repeat("p", api.MaxSearchBodyBytes)}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(textOf(res), "too large") || strings.Contains(textOf(res), "Tell the user") {
		t.Errorf("isError %v, text %q; want isError saying the arguments are too large", res.IsError, textOf(res))
	}
	if f.got.Query != "" {
		t.Error("the search was sent to novad")
	}
	// Just within the limit, it is sent.
	f.status, f.resp = http.StatusOK, bigResponse(1)
	body, _ := json.Marshal(api.SearchBody{Query: "q", Project: "p", RemainingBudgetMs: int(DefaultCallTimeout.Milliseconds())})
	project := strings.Repeat("p", api.MaxSearchBodyBytes-len(body)+1)
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolSearch, Arguments: map[string]any{"query": "q", "project": project}})
	if err != nil || res.IsError || f.got.Project != project {
		t.Errorf("a search of exactly %d bytes: %v %q", api.MaxSearchBodyBytes, err, textOf(res))
	}
}

func TestStatus_IndexNotReady(t *testing.T) {
	f := &fakeBackend{}
	cs := connect(t, Options{Connect: func() (Backend, error) { return f, nil }})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolStatus})
	if err != nil {
		t.Fatal(err)
	}
	if txt := textOf(res); !strings.Contains(txt, "running but memory cannot be searched yet") || !strings.Contains(txt, "no index is active yet. Tell the user") {
		t.Errorf("text %q", txt)
	}
}

// TestAdviceForModel: whatever the reason, the model is told to try
// again or to tell the user, never to run a command itself.
func TestAdviceForModel(t *testing.T) {
	for _, reason := range []string{api.ReasonIndexNotLoaded, api.FreshnessMissing, api.FreshnessServerIndexNotReady, api.ReasonIndexLoading,
		api.ReasonProfileMismatch, api.ReasonDimensionMismatch, api.ReasonCapacityExhausted, api.ReasonTimeout, api.ReasonBudgetExhausted,
		api.ReasonCancelled, api.ReasonCLIInvalidJSON, api.ReasonCLIUnavailable + ":transport", api.ReasonCLIHTTPPrefix + "500", api.ReasonInternal, "something-new"} {
		text := strings.ReplaceAll(adviceForModel(reason), tellUser, "")
		if strings.Contains(text, "novactl") || strings.Contains(text, "make run") {
			t.Errorf("%s: %q names a command", reason, adviceForModel(reason))
		}
		if again := strings.Contains(text, "again"); again == strings.Contains(adviceForModel(reason), "Tell the user") {
			t.Errorf("%s: %q must either say to try again or to tell the user", reason, adviceForModel(reason))
		}
	}
	for _, c := range []struct {
		tool, want string
	}{{ToolSearch, "narrower query"}, {ToolStatus, "Try again in a moment."}} {
		_, msg := failure(context.Background(), context.DeadlineExceeded, c.tool)
		if !strings.Contains(msg, c.want) || (c.tool == ToolStatus && strings.Contains(msg, "query")) {
			t.Errorf("%s timeout: %q", c.tool, msg)
		}
	}
}

func TestDecodeSearch(t *testing.T) {
	in, err := decodeSearch(json.RawMessage(`{"query":"  why   SQLite ","topK":5,"date":null,"dateFrom":"2026-01-01","dateTo":"2026-01-31","project":" nova ","tags":[" a "]}`))
	if err != nil {
		t.Fatal(err)
	}
	if in.Query != "why SQLite" || in.TopK != 5 || in.Date != "" || in.DateFrom != "2026-01-01" || in.Project != "nova" || in.Tags[0] != "a" {
		t.Errorf("%+v", in)
	}
	long := `{"query":"` + strings.Repeat("x", api.MaxQueryRunes+1) + `"}`
	if _, err := decodeSearch(json.RawMessage(long)); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("long query: %v", err)
	}
}

// TestDecodeSearch_SameAsFacade: the arguments memory_search accepts
// become exactly the request the facade decodes from the body the MCP
// server sends it, and what the facade refuses memory_search refuses too.
func TestDecodeSearch_SameAsFacade(t *testing.T) {
	for _, args := range []string{
		`{"query":"  why   SQLite "}`,
		`{"query":"x","topK":20,"date":"2026-03-01T10:00:00Z","project":" nova ","agent":"codex","role":"user"}`,
		`{"query":"x","dateFrom":"2026-01-01","tags":["b"," a ","b",""],"sourceSets":["s"],"lifecycle":["canonical"],"workType":["decision"]}`,
		`{"query":"x","dateTo":"2026-01-31","date":null,"tags":null}`,
	} {
		in, err := decodeSearch(json.RawMessage(args))
		if err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		body := api.SearchBody{Query: in.Query, TopK: in.TopK, Date: in.Date, Project: in.Project, Agent: in.Agent, Role: in.Role,
			Tags: in.Tags, SourceSets: in.SourceSets, Lifecycle: in.Lifecycle, WorkType: in.WorkType}
		if in.DateFrom != "" || in.DateTo != "" {
			body.DateRange = &api.DateRange{From: in.DateFrom, To: in.DateTo}
		}
		sent, _ := json.Marshal(body)
		fromMCP, rerr := api.DecodeSearchRequest(sent, api.Facade, api.DefaultTopK)
		if rerr != nil {
			t.Fatalf("%s: the facade refuses what memory_search sends: %v", args, rerr)
		}
		direct, rerr := api.DecodeSearchRequest([]byte(args), api.Facade, api.DefaultTopK)
		if rerr != nil {
			t.Fatalf("%s: the facade refuses the arguments themselves: %v", args, rerr)
		}
		if !reflect.DeepEqual(fromMCP, direct) {
			t.Errorf("%s:\n memory_search searches %+v\n the facade would search %+v", args, fromMCP, direct)
		}
	}
	for _, args := range []string{`{"query":" "}`, `{"query":"x","topK":21}`, `{"query":"x","topK":5.5}`, `{"query":"x","date":"2026-02-30"}`,
		`{"query":"x","dateFrom":"2026-02-01","dateTo":"2026-01-01"}`, `{"query":"` + strings.Repeat("x", api.MaxQueryRunes+1) + `"}`} {
		_, mcpErr := decodeSearch(json.RawMessage(args))
		_, apiErr := api.DecodeSearchRequest([]byte(args), api.Direct, api.DefaultTopK)
		if mcpErr == nil || apiErr == nil {
			t.Errorf("%s: memory_search error %v, direct server error %v; want both to refuse", args, mcpErr, apiErr)
		}
	}
}

// TestSearchSchema_NoValidCallRefused: every argument set the published
// input schema accepts, memory_search accepts; the schema may be stricter
// than the checks novad applies, never looser.
func TestSearchSchema_NoValidCallRefused(t *testing.T) {
	schema, err := searchSchema().Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{
		`{"query":"x"}`, `{"query":"x","topK":1}`, `{"query":"x","topK":20}`, `{"query":"x","date":"2026-03-01"}`,
		`{"query":"x","dateFrom":"2026-01-01","dateTo":"2026-01-01"}`, `{"query":"x","tags":["a","b"],"workType":["decision"]}`,
		`{"query":"x","project":"p","agent":"codex","role":"user","sourceSets":["s"],"lifecycle":["canonical"]}`,
		`{"query":"x","tags":[]}`,
		// JSON Schema counts a number with no fraction as an integer: Python
		// clients write 5.0 for a float that holds 5.
		`{"query":"x","topK":5.0}`, `{"query":"x","topK":1e1}`,
	} {
		var v any
		if err := json.Unmarshal([]byte(args), &v); err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate(v); err != nil {
			t.Fatalf("%s: the schema refuses a valid call: %v", args, err)
		}
		if _, err := decodeSearch(json.RawMessage(args)); err != nil {
			t.Errorf("%s: valid by the published schema, refused by memory_search: %v", args, err)
		}
	}
}

func TestServe_Guard(t *testing.T) {
	// In process: malformed lines get errors, well-formed ones reach the
	// SDK, and the end of input ends Serve cleanly.
	in := strings.NewReader("oops\n" +
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		"[1]\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\r\n")
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := Serve(ctx, New(Options{}), in, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines:\n%s", len(lines), out.String())
	}
	joined := out.String()
	for _, want := range []string{`"code":-32700`, `"code":-32600`, `"id":1,"result"`, `"id":2,"result":{}`} {
		if !strings.Contains(joined, want) {
			t.Errorf("output lacks %s:\n%s", want, joined)
		}
	}
}

func TestReadLine_Limit(t *testing.T) {
	r := strings.NewReader(strings.Repeat("a", 100) + "\nshort\n")
	br := bufioReader(r)
	line, tooLong, err := readLine(br, 50)
	if !tooLong || string(line) != strings.Repeat("a", 50) || err != nil {
		t.Fatalf("%q %v %v; want its first 50 bytes, tooLong", line, tooLong, err)
	}
	line, tooLong, _ = readLine(br, 50)
	if string(line) != "short" || tooLong {
		t.Fatalf("%q %v", line, tooLong)
	}
	if _, _, err := readLine(br, 50); !errors.Is(err, io.EOF) {
		t.Fatalf("err %v", err)
	}
}

func bufioReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, 16) }

// TestNotServingThisHome: when no novad holds this home's lock and
// something else answers on its ports (another home's novad), the client
// sends it nothing, and the tools say that; when this home's novad holds
// its lock but has not bound its ports yet, they say it is starting and
// to try again. Neither says novad is not running and the user can start
// it: a novad started for this home could not bind those ports, or would
// only stand by.
func TestNotServingThisHome(t *testing.T) {
	const url = "http://127.0.0.1:3036/api/rag/external/search" // never dialled: the backend is fake
	for _, c := range []struct {
		name   string
		err    *client.NotRunningError
		says   []string
		reason string
	}{
		{"another program answers", &client.NotRunningError{URL: url, Other: true}, []string{"another program", "Tell the user"}, api.ReasonCLIOtherHome},
		{"starting", &client.NotRunningError{URL: url, Starting: true, PID: 4242}, []string{"starting"}, api.ReasonCLIUnavailable + ":starting"},
	} {
		f := &fakeBackend{err: c.err}
		cs := connect(t, Options{Connect: func() (Backend, error) { return f, nil }})
		for _, tool := range []string{ToolSearch, ToolStatus} {
			var args any
			if tool == ToolSearch {
				args = map[string]any{"query": "q"}
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
			if err != nil {
				t.Fatalf("%s, %s: a protocol error: %v", c.name, tool, err)
			}
			text := textOf(res)
			b, _ := json.Marshal(res.StructuredContent)
			if strings.Contains(text, "not running") || strings.Contains(text, "can start it") || strings.Contains(string(b), "connection-refused") {
				t.Errorf("%s, %s says novad is not running: %s\n%s", c.name, tool, text, b)
			}
			for _, w := range c.says {
				if !strings.Contains(text, w) {
					t.Errorf("%s, %s does not say %q: %s", c.name, tool, w, text)
				}
			}
			if !strings.Contains(string(b), c.reason) {
				t.Errorf("%s, %s: reason is not %s: %s", c.name, tool, c.reason, b)
			}
		}
	}
}

// TestSearchSchema_NamesEveryAgent: the agent filter of memory_search
// names every agent whose memory Nova reads (agents.MemoryKinds), Cursor
// and Aider among them, so that a model knows each value it may pass.
func TestSearchSchema_NamesEveryAgent(t *testing.T) {
	desc := searchSchema().Properties["agent"].Description
	for _, k := range agents.MemoryKinds() {
		if !strings.Contains(desc, k) {
			t.Errorf("memory_search's agent filter does not name %s: %q", k, desc)
		}
	}
}

// TestSearchTool_AgentconfAgrees: agentconf, which warns when an agent's
// tool filter leaves memory_search out, names the tool the server serves.
func TestSearchTool_AgentconfAgrees(t *testing.T) {
	if agentconf.SearchTool != ToolSearch {
		t.Errorf("agentconf.SearchTool %q, the server's tool %q", agentconf.SearchTool, ToolSearch)
	}
}

// brokenStdout is a client's stdout whose reader has gone: every write
// fails as a write to a broken pipe does.
type brokenStdout struct{}

func (brokenStdout) Write([]byte) (int, error) { return 0, syscall.EPIPE }

// TestServe_BrokenStdout: when the client's end of stdout is gone, Serve
// reports the broken pipe, whatever error the SDK's session ends with
// after it (its read of the closed transport), so that novactl mcp can
// say the client went away instead of "read/write on closed pipe".
func TestServe_BrokenStdout(t *testing.T) {
	// The order of the two errors is a race: it took some hundred
	// sessions under -race to see the wrong one.
	for range 200 {
		pr, pw := io.Pipe()
		go func() {
			_, _ = io.WriteString(pw, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
			// The client keeps its stdin open: the session must end on the
			// broken stdout alone.
		}()
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		err := Serve(ctx, New(Options{}), pr, brokenStdout{})
		cancel()
		_ = pw.Close()
		if !errors.Is(err, syscall.EPIPE) {
			t.Fatalf("Serve: %v, want the broken pipe (EPIPE)", err)
		}
	}
}
