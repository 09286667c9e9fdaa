package embedding

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/nova-recall/nova/api"
)

// ProviderOpenAI is the provider name of OpenAI-compatible endpoints.
const ProviderOpenAI = "openai"

// OpenAI embeds through an OpenAI-compatible POST <endpoint>/embeddings
// (OpenAI, Ollama, LM Studio, llama.cpp server). It is safe for concurrent
// use.
type OpenAI struct {
	endpoint string
	model    string
	dim      int
	apiKey   string
	batch    int
	timeout  time.Duration
	client   *http.Client
}

// OpenAIOptions configure an OpenAI embedder.
type OpenAIOptions struct {
	Endpoint  string // base URL, e.g. http://127.0.0.1:11434/v1
	Model     string
	Dimension int
	APIKey    string // may be empty for local servers
	BatchSize int
	Timeout   time.Duration // per request
	// Client is the HTTP client; nil uses a default with no proxy.
	Client *http.Client
}

// NewOpenAI returns an embedder for an OpenAI-compatible endpoint.
func NewOpenAI(o OpenAIOptions) *OpenAI {
	if o.BatchSize <= 0 {
		o.BatchSize = 64
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.Client == nil {
		// Memory text must not be routed through an environment proxy.
		o.Client = &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 4}, CheckRedirect: refuseRedirect}
	}
	return &OpenAI{
		endpoint: strings.TrimRight(o.Endpoint, "/"), model: o.Model, dim: o.Dimension,
		apiKey: o.APIKey, batch: o.BatchSize, timeout: o.Timeout, client: o.Client,
	}
}

// CloseIdleConnections closes the connections e keeps open for a next
// call. A build calls it when it is done embedding: e is not used again,
// and an endpoint without an idle timeout would keep them open for good.
func (e *OpenAI) CloseIdleConnections() { e.client.CloseIdleConnections() }

// Profile implements Embedder.
func (e *OpenAI) Profile() api.EmbeddingProfile {
	return api.EmbeddingProfile{Provider: ProviderOpenAI, Model: e.model, Dimension: e.dim}
}

// Embed implements Embedder, sending texts in batches.
func (e *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += e.batch {
		end := min(len(texts), start+e.batch)
		vecs, err := e.embedBatch(ctx, texts[start:end])
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

type openAIRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

type openAIResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// endpointError says what an endpoint answered with a status other than
// 200: the status and the machine codes of an OpenAI-shaped error body,
// never its message. Servers echo what they refuse in the message (the
// key: "Incorrect API key provided: sk-..."; the memory text being
// embedded: "Invalid input [...]"), and the error is logged and printed.
func endpointError(status int, body []byte) error {
	var r struct {
		Error struct {
			Type string `json:"type"`
			Code any    `json:"code"` // a string, or a number on some servers
		} `json:"error"`
	}
	var codes []string
	if json.Unmarshal(body, &r) == nil {
		if r.Error.Type != "" {
			codes = append(codes, r.Error.Type)
		}
		if r.Error.Code != nil {
			codes = append(codes, fmt.Sprint(r.Error.Code))
		}
	}
	msg := fmt.Sprintf("embedding endpoint answered %d", status)
	if len(codes) > 0 {
		msg += " (" + strings.Join(codes, ", ") + ")"
	}
	return errors.New(msg)
}

func (e *OpenAI) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	input := make([]string, len(texts))
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			t = "empty" // some servers reject blank input
		}
		input[i] = t
	}
	body, _ := json.Marshal(openAIRequest{Model: e.model, Input: input})
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.endpoint+"/embeddings", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("embedding request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if e.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.apiKey)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("%w: %s did not answer within %s", ErrUnavailable, e.endpoint, e.timeout)
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrUnavailable, e.endpoint, e.redactURLError(err))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, fmt.Errorf("read embedding response: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, endpointError(resp.StatusCode, raw)
	}
	var r openAIResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("embedding response is not OpenAI-shaped JSON: %w", err)
	}
	sort.Slice(r.Data, func(i, j int) bool { return r.Data[i].Index < r.Data[j].Index })
	vecs := make([][]float32, len(r.Data))
	for i, d := range r.Data {
		if d.Index != i {
			return nil, fmt.Errorf("embedding response indexes are not 0..%d", len(texts)-1)
		}
		vecs[i] = d.Embedding
	}
	if err := CheckVectors(vecs, len(texts), e.dim); err != nil {
		return nil, err
	}
	for _, v := range vecs {
		Normalize(v)
	}
	return vecs, nil
}

// redactURLError keeps transport errors short and free of request bodies
// and of the API key.
func (e *OpenAI) redactURLError(err error) string {
	s := err.Error()
	if e.apiKey != "" {
		s = strings.ReplaceAll(s, e.apiKey, "[redacted]")
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// refuseRedirect keeps an embedding request where it was sent: a redirect
// would carry the memory text (and the key or token headers, which Go
// forwards when they are not Authorization) to a host the configuration
// never named, possibly off the machine.
func refuseRedirect(req *http.Request, _ []*http.Request) error {
	return fmt.Errorf("refused a redirect to %s: embedding requests are not redirected", req.URL.Host)
}
