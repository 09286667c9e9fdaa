package cli

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/nova-recall/nova/config"
)

// configGet prints the value at key, a dotted key of cfg.AsMap (what
// config show --json prints: "server.port", "sources.0.path"), for a
// script that needs one setting: a string as it is, so that the shell
// needs no JSON parser, any other value as JSON. An unknown key is a usage
// error naming the field and the nearest key, in config check's --json
// form when jsonOut.
func configGet(inv *Invocation, cfg config.Config, key string, jsonOut bool) int {
	all := cfg.AsMap()
	v, ok := configValue(all, key)
	if !ok {
		hint := didYouMean(key, configKeys("", all))
		if jsonOut {
			printJSON(inv.Stdout, map[string]any{"ok": false, "error": fmt.Sprintf("unknown key %q%s", key, hint),
				"errors": []config.Problem{{Field: key, Message: "unknown key" + hint}}})
		} else {
			fmt.Fprintf(inv.Stderr, "novactl config get: unknown key %q%s (novactl config show --json lists the keys)\n", key, hint)
		}
		return ExitUsage
	}
	if jsonOut {
		printJSON(inv.Stdout, map[string]any{"ok": true, "key": key, "value": v})
		return ExitOK
	}
	switch v := v.(type) {
	case string:
		fmt.Fprintln(inv.Stdout, v)
	case map[string]any, []any:
		printJSON(inv.Stdout, v)
	default:
		// The value as show --json writes it (a duration in its units,
		// a float without an exponent where JSON has none).
		b, err := json.Marshal(v)
		if err != nil {
			return commandError(inv, false, "novactl config get", ExitFailure, err.Error())
		}
		fmt.Fprintln(inv.Stdout, string(b))
	}
	return ExitOK
}

// configValue returns the value at the dotted key in v, a tree of
// config.Config.AsMap: a map's key, or a list's index ("sources.0").
func configValue(v any, key string) (any, bool) {
	if key == "" {
		return nil, false
	}
	for part := range strings.SplitSeq(key, ".") {
		switch node := v.(type) {
		case map[string]any:
			next, ok := node[part]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(node) || part != strconv.Itoa(i) {
				return nil, false
			}
			v = node[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// configKeys lists the dotted keys under prefix in v, a tree of
// config.Config.AsMap, for the suggestion after an unknown key: sections
// and their fields; a list's items as prefix.0 and so on.
func configKeys(prefix string, v any) []string {
	var keys []string
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	switch node := v.(type) {
	case map[string]any:
		for k, child := range node {
			keys = append(keys, join(k))
			keys = append(keys, configKeys(join(k), child)...)
		}
	case []any:
		for i, child := range node {
			keys = append(keys, join(strconv.Itoa(i)))
			keys = append(keys, configKeys(join(strconv.Itoa(i)), child)...)
		}
	}
	slices.Sort(keys)
	return keys
}
