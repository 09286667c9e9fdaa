package eval

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRunLoCoMo_independentOfTheMachineZone: LoCoMo's session times are
// read as UTC and the clock is fixed, so the figures must not depend on
// the zone of the machine that runs the eval. Ana says the same thing in
// two sessions, at 23:30 on 8 May and at 10:00 on 7 May; the question
// names 8 May. In Kiritimati (UTC+14) the first is of 9 May and the second
// of 8 May: an engine in the machine's zone put the other turn first.
func TestRunLoCoMo_independentOfTheMachineZone(t *testing.T) {
	kiritimati, err := time.LoadLocation("Pacific/Kiritimati")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	turn := func(id, speaker, text string) map[string]string {
		return map[string]string{"dia_id": id, "speaker": speaker, "text": text}
	}
	sample := map[string]any{
		"sample_id": "zone",
		"conversation": map[string]any{
			"speaker_a": "Ana", "speaker_b": "Ben",
			"session_1_date_time": "11:30 pm on 8 May, 2023",
			"session_1":           []any{turn("D1:1", "Ana", "I went hiking at the lake with my sister.")},
			"session_2_date_time": "10:00 am on 7 May, 2023",
			"session_2":           []any{turn("D2:1", "Ana", "I went hiking at the lake with my sister.")},
		},
		"qa": []any{map[string]any{"question": "Where did Ana go hiking with her sister on 8 May, 2023?", "evidence": []string{"D1:1"}, "category": 2}},
	}
	b, err := json.Marshal([]any{sample})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "zone.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	r1 := func() float64 {
		t.Helper()
		rep, err := RunLoCoMo(context.Background(), path, LoCoMoOptions{Home: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		return rep.Systems[0].Overall.RecallAt1
	}
	utc := r1()
	saved := time.Local
	time.Local = kiritimati
	t.Cleanup(func() { time.Local = saved })
	if got := r1(); got != utc || utc != 1 {
		t.Errorf("recall@1 %v in UTC, %v with the machine in Kiritimati; want 1 both", utc, got)
	}
}
