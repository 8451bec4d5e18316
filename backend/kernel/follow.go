package kernel

import (
	"context"
	"sync"
	"time"
)

// followEvery is how often a kernel asks the database whether another
// process wrote it (PRAGMA data_version, a read of a few bytes of shared
// memory when nothing changed).
const followEvery = 250 * time.Millisecond

// follower publishes the events other processes store in the kernel's
// database (a foya mode in a terminal, a foya exec --session, another
// window's kernel): a session's UI shows a mode switched from a terminal
// as it happens, in seq order with the kernel's own events (the engine's
// CatchUp). Its goroutine ends with stop.
type follower struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newFollower(k *Kernel) *follower {
	ctx, cancel := context.WithCancel(context.Background())
	f := &follower{cancel: cancel}
	f.wg.Go(func() {
		t := time.NewTicker(followEvery)
		defer t.Stop()
		last := int64(-1)
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			v, err := k.store.DataVersion(ctx)
			if err != nil || v == last {
				continue
			}
			if k.catchUp(ctx) == nil {
				last = v
			}
		}
	})
	return f
}

// stop ends the follower and waits for it; a nil follower (a kernel whose
// Open failed early) has nothing to stop.
func (f *follower) stop() {
	if f == nil {
		return
	}
	f.cancel()
	f.wg.Wait()
}

// catchUp publishes what other processes stored since the kernel last
// published each session's events.
func (k *Kernel) catchUp(ctx context.Context) error {
	seqs, err := k.store.SessionSeqs(ctx)
	if err != nil {
		return err
	}
	for id, seq := range seqs {
		if seq > k.eng.Published(id) {
			k.eng.CatchUp(ctx, id)
		}
	}
	return nil
}
