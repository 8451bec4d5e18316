package provider

import (
	"context"
	"io"
	"sync/atomic"
	"time"
)

// idleWatch cancels one request when nothing arrives for the idle timeout:
// its timer starts with the request and restarts with every byte read from
// the body.
type idleWatch struct {
	timeout time.Duration
	timer   *time.Timer // nil when there is no timeout
	cancel  context.CancelFunc
	expired atomic.Bool
}

// watchIdle returns a context for one request that the watch cancels when
// the request goes idle.
func (c *Client) watchIdle(parent context.Context) (context.Context, *idleWatch) {
	ctx, cancel := context.WithCancel(parent)
	w := &idleWatch{timeout: c.cfg.IdleTimeout, cancel: cancel}
	if w.timeout > 0 {
		w.timer = time.AfterFunc(w.timeout, func() {
			w.expired.Store(true)
			cancel()
		})
	}
	return ctx, w
}

// stop ends the watch and releases the request's context.
func (w *idleWatch) stop() {
	if w.timer != nil {
		w.timer.Stop()
	}
	w.cancel()
}

// fired reports whether the timeout expired.
func (w *idleWatch) fired() bool { return w.expired.Load() }

// body returns rc with every read that brings bytes restarting the timer.
func (w *idleWatch) body(rc io.ReadCloser) io.ReadCloser {
	if w == nil || w.timer == nil {
		return rc
	}
	return &idleBody{ReadCloser: rc, w: w}
}

type idleBody struct {
	io.ReadCloser
	w *idleWatch
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 && !b.w.fired() {
		b.w.timer.Reset(b.w.timeout)
	}
	return n, err
}
