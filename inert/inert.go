// Package inert makes what memory holds safe to print on a terminal:
// shown as text, never acted on. Memory is what agents and tools wrote, and
// a transcript can hold a colour, a clipboard write (OSC 52), a title
// change or a screen clear; the TUI and novactl's text output print it.
package inert

import (
	"reflect"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// tabWidth is how many spaces stand for a tab in shown text.
const tabWidth = 4

// Text returns s as text a terminal only prints: escape sequences are
// removed and other control characters dropped, but for newlines, which
// the callers lay out themselves, and tabs, which become spaces (a tab or
// a carriage return moves the cursor across a layout).
func Text(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	s = strings.ReplaceAll(ansi.Strip(s), "\t", strings.Repeat(" ", tabWidth))
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return -1
		}
		return r
	}, s)
}

// isControl reports whether r is a control character other than a
// newline (C0, DEL and C1).
func isControl(r rune) bool { return r != '\n' && unicode.IsControl(r) }

// Value applies Text to every string that v points to, in place: fields,
// elements, map keys and values, at any depth. Search answers and doctor
// reports go through it as they arrive, so no view can forget to.
func Value(v any) {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		inertValue(rv.Elem())
	}
}

func inertValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if s := v.String(); v.CanSet() && strings.ContainsFunc(s, isControl) {
			v.SetString(Text(s))
		}
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return
		}
		if v.Kind() == reflect.Interface {
			// The value inside an interface cannot be set: copy, clean, put back.
			if !v.CanSet() {
				return
			}
			c := reflect.New(v.Elem().Type()).Elem()
			c.Set(v.Elem())
			inertValue(c)
			v.Set(c)
			return
		}
		inertValue(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				inertValue(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			inertValue(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		// Keys cannot be changed in place: rebuild the map.
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		it := v.MapRange()
		for it.Next() {
			k := reflect.New(v.Type().Key()).Elem()
			k.Set(it.Key())
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(it.Value())
			inertValue(k)
			inertValue(e)
			out.SetMapIndex(k, e)
		}
		if v.CanSet() {
			v.Set(out)
		}
	}
}
