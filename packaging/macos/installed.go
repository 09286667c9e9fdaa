package macos

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// InstalledNovaHome returns the NOVA_HOME that the plist at path gives its
// job (EnvironmentVariables): the home the installed novad serves, which
// need not be the caller's. The error wraps fs.ErrNotExist when there is
// no plist, and says why otherwise (unreadable, no absolute NOVA_HOME).
func InstalledNovaHome(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	top, err := DecodePlist(b)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	env, _ := top["EnvironmentVariables"].(map[string]any)
	home, _ := env["NOVA_HOME"].(string)
	if !filepath.IsAbs(home) {
		return "", fmt.Errorf("%s: EnvironmentVariables has no absolute NOVA_HOME (got %q)", path, home)
	}
	return filepath.Clean(home), nil
}

// DecodePlist decodes an XML property list whose top level is a dict.
// Values are string (also for date, data and real), int64 (integer),
// bool, []any (array) and map[string]any (dict). Binary property lists
// are refused: `plutil -convert xml1` turns one into XML.
func DecodePlist(b []byte) (map[string]any, error) {
	if bytes.HasPrefix(b, []byte("bplist")) {
		return nil, errors.New("a binary property list (plutil -convert xml1 makes it XML)")
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := d.Token()
		if err != nil {
			if err == io.EOF {
				err = errors.New("no value")
			}
			return nil, fmt.Errorf("not a property list: %w", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local == "plist" {
			continue
		}
		v, err := decodePlistValue(d, se)
		if err != nil {
			return nil, fmt.Errorf("not a property list: %w", err)
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, errors.New("the property list's top level is not a dict")
		}
		return m, nil
	}
}

// decodePlistValue decodes the element se has opened, through its end.
func decodePlistValue(d *xml.Decoder, se xml.StartElement) (any, error) {
	switch se.Name.Local {
	case "dict", "array":
		dict := se.Name.Local == "dict"
		m := map[string]any{}
		var a []any
		key, haveKey := "", false
		for {
			tok, err := d.Token()
			if err != nil {
				return nil, err
			}
			switch t := tok.(type) {
			case xml.EndElement:
				if dict {
					if haveKey {
						return nil, fmt.Errorf("key %q has no value", key)
					}
					return m, nil
				}
				return a, nil
			case xml.StartElement:
				if dict && t.Name.Local == "key" {
					if haveKey {
						return nil, fmt.Errorf("key %q has no value", key)
					}
					if err := d.DecodeElement(&key, &t); err != nil {
						return nil, err
					}
					haveKey = true
					continue
				}
				if dict && !haveKey {
					return nil, fmt.Errorf("<%s> in a dict without a key", t.Name.Local)
				}
				v, err := decodePlistValue(d, t)
				if err != nil {
					return nil, err
				}
				if dict {
					m[key], haveKey = v, false
				} else {
					a = append(a, v)
				}
			}
		}
	case "string", "date", "data", "real", "integer":
		var s string
		if err := d.DecodeElement(&s, &se); err != nil {
			return nil, err
		}
		if se.Name.Local == "integer" {
			n, err := strconv.ParseInt(strings.TrimSpace(s), 0, 64)
			if err != nil {
				return nil, fmt.Errorf("integer %q: %w", s, err)
			}
			return n, nil
		}
		return s, nil
	case "true", "false":
		if err := d.Skip(); err != nil {
			return nil, err
		}
		return se.Name.Local == "true", nil
	}
	return nil, fmt.Errorf("unknown element <%s>", se.Name.Local)
}
