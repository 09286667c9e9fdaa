package daemon_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/nova-recall/nova/api"
)

// TestHealthDuringSwapIsOneGeneration: every /health answer describes one
// generation, while generations are swapped in under it: the generation
// it names is the one its integrity says is served. Before, the handler
// took the served generation first and integrity later; a swap between
// the two (integrity is recorded just before the pointer moves) paired
// the old generation's id and counts with the new one's integrity.
func TestHealthDuringSwapIsOneGeneration(t *testing.T) {
	n := startLogged(t)
	base := "http://" + n.srv.DirectAddr().String()
	waitServing(t, base)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var mixed []string
	polls := 0
	for range 3 {
		wg.Go(func() {
			client := &http.Client{}
			for {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := client.Get(base + api.PathHealth)
				if err != nil {
					t.Error(err)
					return
				}
				var h api.Health
				err = json.NewDecoder(resp.Body).Decode(&h)
				resp.Body.Close()
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				polls++
				if h.Generation != h.Integrity.ServedRunID || h.IndexUnavailableReason != api.ActiveIndexReady {
					mixed = append(mixed, fmt.Sprintf("generation %s, integrity serves %s (active %s), reason %s",
						h.Generation, h.Integrity.ServedRunID, h.Integrity.ActiveRunID, h.IndexUnavailableReason))
				}
				mu.Unlock()
			}
		})
	}
	for i := range 12 {
		n.appendAndServe(fmt.Sprintf(`{"id":"r%d","text":"Swap %d of the health test moved the hangar door."}`, i, i))
	}
	close(stop)
	wg.Wait()
	if len(mixed) > 0 {
		t.Errorf("%d of %d /health answers mixed two generations; the first: %s", len(mixed), polls, mixed[0])
	}
}
