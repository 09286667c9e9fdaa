package embedding

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/nova-recall/nova/api"
	"github.com/nova-recall/nova/secrets"
)

// Remote embeds through a running novad's internal POST /encode, so the
// build shares the daemon's embedder instead of loading a second one. The
// token is read from the 0600 token file by the caller and sent only in
// the request header.
type Remote struct {
	baseURL string
	token   secrets.Token
	profile api.EmbeddingProfile
	batch   int
	client  *http.Client
}

// NewRemote returns an embedder that calls baseURL/encode. profile is the
// daemon's profile as its /health reported it.
func NewRemote(baseURL string, token secrets.Token, profile api.EmbeddingProfile) *Remote {
	return &Remote{
		baseURL: baseURL, token: token, profile: profile, batch: 256,
		client: &http.Client{Timeout: 10 * time.Minute, Transport: &http.Transport{Proxy: nil}, CheckRedirect: refuseRedirect},
	}
}

// CloseIdleConnections closes the connections r keeps open for a next
// call. A build calls it when it is done embedding: r is not used again,
// and the connections would stay open (in novad too) until novad's idle
// timeout.
func (r *Remote) CloseIdleConnections() { r.client.CloseIdleConnections() }

// Profile implements Embedder.
func (r *Remote) Profile() api.EmbeddingProfile { return r.profile }

// Embed implements Embedder. Each request holds at most r.batch texts
// and, as JSON, fits /encode's body limit: long chunks in CJK (three
// bytes a character) or markup (JSON writes each <, > and & in six
// bytes) made 256 of them larger than it, and novad refused them.
func (r *Remote) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); {
		end := start + 1 // a text too large alone is sent alone, and refused
		size := encodedSize(texts[start])
		for end < len(texts) && end-start < r.batch {
			n := encodedSize(texts[end])
			if size+n > encodeBudget {
				break
			}
			size += n
			end++
		}
		vecs, err := r.call(ctx, texts[start:end])
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
		start = end
	}
	return out, nil
}

// encodeBudget is how many bytes of texts (encodedSize) one /encode
// request holds: the body limit less the rest of the body.
const encodeBudget = api.MaxEncodeBodyBytes - len(`{"texts":[]}`)

// encodedSize is the bytes text takes in an /encode body: its JSON
// string and the comma after it.
func encodedSize(text string) int {
	b, _ := json.Marshal(text)
	return len(b) + 1
}

func (r *Remote) call(ctx context.Context, texts []string) ([][]float32, error) {
	body, _ := json.Marshal(api.EncodeRequest{Texts: texts})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.baseURL+api.PathEncode, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(api.HeaderInternalToken, r.token.Reveal())
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: novad /encode: %v", ErrUnavailable, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 512<<20))
	if err != nil {
		return nil, fmt.Errorf("read /encode response: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		var e api.Error
		_ = json.Unmarshal(raw, &e)
		return nil, fmt.Errorf("novad /encode answered %d %s", resp.StatusCode, e.Code)
	}
	var vecs [][]float32
	if err := json.Unmarshal(raw, &vecs); err != nil {
		return nil, fmt.Errorf("novad /encode answered something other than a list of vectors: %w", err)
	}
	if err := CheckVectors(vecs, len(texts), r.profile.Dimension); err != nil {
		return nil, err
	}
	return vecs, nil
}
