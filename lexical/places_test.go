package lexical

import "testing"

func TestPlaceNames(t *testing.T) {
	for _, w := range []string{"苏州", "杭州", "青城山", "成都", "巴黎", "西湖", "浙江省"} {
		if !IsPlaceName(w) {
			t.Errorf("%s is no place name", w)
		}
	}
	// Words gse tags as places that are mostly something else, single
	// characters, and words that are no place at all.
	for _, w := range []string{"哥哥", "长大", "深度", "登山", "城市", "东西", "州", "京", "吉他", "婚礼", ""} {
		if IsPlaceName(w) {
			t.Errorf("%q is a place name", w)
		}
	}
	if n := len(placeNames().names); n < 5000 {
		t.Errorf("only %d place names loaded", n)
	}
}

func TestPlaceNameAt(t *testing.T) {
	for _, c := range []struct {
		s    string
		want string
	}{
		{"苏州结婚", "苏州"},
		{"青城山也取消了", "青城山"},
		{"浙江省杭州市", "浙江省"}, // the longest name
		{"成都", "成都"},
		{"想要不要去", ""},
		{"苏", ""},
		{"", ""},
		{"\xff\xfe", ""},
	} {
		if got := PlaceNameAt(c.s); c.s[:got] != c.want {
			t.Errorf("PlaceNameAt(%q) = %q, want %q", c.s, c.s[:got], c.want)
		}
	}
}
