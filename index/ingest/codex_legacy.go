package ingest

// Legacy Codex sessions: what the TypeScript Codex CLI (2025, before the
// Rust rewrite) saved of a session.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// The TypeScript CLI kept each session as one JSON document,
// sessions/rollout-<YYYY-MM-DD>-<uuid>.json (directly in sessions/, no
// day folders), pretty-printed:
//
//	{"session": {"timestamp", "id", "instructions", ...}, "items": [...]}
//
// where items are the conversation as the CLI showed it, in the shapes of
// the Responses API that the envelope-less rollouts' bare response items
// have (message with input_text/output_text content, function_call,
// function_call_output, reasoning), and instructions are the user's
// standing instructions, not dialogue. The session's timestamp is the
// time of its last save (the file is rewritten, whole, at every item):
// the only time the file holds, so every record has it; it names no
// working directory. Each item is read as a bare response item line
// would be, numbered from 1 in the order of the list, so its records are
// a rollout's.
//
// The file is named by the day of each save, so a session that runs
// past midnight (UTC) is saved whole again under the next day's name,
// and the file of the day before keeps a start of it, under the same
// ids: a file with a later day's save of its session beside it is not
// read (see codexLegacyNext).
//
// The CLI truncates the file and writes it again at each item: a read
// may see it empty or cut short. The items before the cut are read; the
// cut is reported only once the file has settled (fileCtx.settled),
// for until then it is a write in progress, and the next sync, which the
// write's end brings, reads the file whole.

// codexMaxLegacy bounds a legacy session read whole.
const codexMaxLegacy = 256 << 20

// codexLegacyExt ends the name of a legacy session (rollout-*.json).
const codexLegacyExt = ".json"

// codexLegacy reports whether path is a legacy session.
func codexLegacy(path string) bool { return strings.HasSuffix(path, codexLegacyExt) }

// codexLegacyName matches a legacy session's file name: the day of its
// save and the session's id.
var codexLegacyName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^rollout-(\d{4}-\d{2}-\d{2})-([0-9A-Za-z-]+)\.json$`)
})

// codexLegacyNext returns the path a save of the legacy session at path
// on the next day has, its companion (see Companions): when that file
// comes, the session is read from it, and this one is read again to
// read nothing. "" for a name not of that form.
func codexLegacyNext(path string) string {
	m := codexLegacyName().FindStringSubmatch(filepath.Base(path))
	if m == nil {
		return ""
	}
	day, err := time.Parse(time.DateOnly, m[1])
	if err != nil {
		return ""
	}
	return filepath.Join(filepath.Dir(path), "rollout-"+day.AddDate(0, 0, 1).Format(time.DateOnly)+"-"+m[2]+codexLegacyExt)
}

// codexLegacySuperseded reports whether a save of the legacy session at
// path on a later day stands beside it: that one holds the whole session.
func codexLegacySuperseded(path string) bool {
	m := codexLegacyName().FindStringSubmatch(filepath.Base(path))
	if m == nil {
		return false
	}
	// The id is letters, digits and dashes: no glob syntax.
	saves, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "rollout-*-"+m[2]+codexLegacyExt))
	for _, p := range saves {
		if o := codexLegacyName().FindStringSubmatch(filepath.Base(p)); o != nil && o[2] == m[2] && o[1] > m[1] {
			return true
		}
	}
	return false
}

// readCodexLegacy reads a legacy session whole.
func readCodexLegacy(fc *fileCtx) error {
	if codexLegacySuperseded(fc.path) {
		return nil
	}
	f, err := openSource(fc.path)
	if err != nil {
		return fmt.Errorf("open session: %w", err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, codexMaxLegacy+1))
	if err != nil {
		return fmt.Errorf("read session: %w", err)
	}
	if len(raw) > codexMaxLegacy {
		fc.problem(0, fmt.Sprintf("larger than %d bytes: skipped", codexMaxLegacy))
		return nil
	}
	if binaryContent(string(raw[:min(len(raw), sniffBytes)])) {
		fc.problem(0, "binary content (NUL bytes or mostly invalid UTF-8), not text: skipped")
		return nil
	}
	session, items, stop := codexLegacyDocument(bytes.TrimPrefix(raw, utf8BOM))
	cut := errors.Is(stop, io.EOF) || errors.Is(stop, io.ErrUnexpectedEOF)
	if stop != nil && !cut {
		fc.problem(0, "not a Codex session: "+trimErr(stop))
		return nil
	}
	if cut && (fc.mod.IsZero() || fc.settled()) {
		fc.problem(0, fmt.Sprintf("cut short after %d items (a write a crash interrupted): the rest is not read", len(items)))
	}
	h, err := newCodexHandler(fc, nil)
	if err != nil {
		return err
	}
	if session != nil {
		// A bare session meta line: its id and time.
		if err := readLine(fc, h, 0, session); err != nil {
			return err
		}
	}
	for i, item := range items {
		if i%256 == 0 {
			if err := fc.ctx.Err(); err != nil {
				return err
			}
		}
		if err := readLine(fc, h, i+1, item); err != nil {
			return err
		}
	}
	return nil
}

// codexLegacyDocument decodes a legacy session as far as it is whole:
// its session object and its items up to the first one cut short, and
// what stopped the decoding (nil for a whole document; io.EOF or
// io.ErrUnexpectedEOF for one cut short).
func codexLegacyDocument(raw []byte) (session json.RawMessage, items []json.RawMessage, stop error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil {
		return nil, nil, err
	} else if tok != json.Delim('{') {
		return nil, nil, fmt.Errorf("a JSON %v, not an object", tok)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return session, items, err
		}
		switch tok {
		case "items":
			if items, err = codexLegacyItems(dec); err != nil {
				return session, items, err
			}
		case "session":
			var s json.RawMessage
			if err := dec.Decode(&s); err != nil {
				return session, items, err
			}
			session = s
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return session, items, err
			}
		}
	}
	_, err := dec.Token() // the closing brace
	return session, items, err
}

// codexLegacyItems decodes the items list whose "[" is dec's next token,
// up to its end or the first item cut short.
func codexLegacyItems(dec *json.Decoder) ([]json.RawMessage, error) {
	if tok, err := dec.Token(); err != nil {
		return nil, err
	} else if tok != json.Delim('[') {
		return nil, fmt.Errorf("items: a JSON %v, not a list", tok)
	}
	var items []json.RawMessage
	for dec.More() {
		var item json.RawMessage
		if err := dec.Decode(&item); err != nil {
			return items, err
		}
		items = append(items, item)
	}
	_, err := dec.Token()
	return items, err
}
