package run

import (
	"context"
)

// pool runs work at most jobs at a time and hands the results to emit one
// at a time, in the order the work was submitted, so that the output of a
// batch is the same whatever the parallelism. It holds at most window
// results that wait for an earlier one: a slow request delays what is
// started after it, not what memory holds.
type pool[T any] struct {
	sem   chan struct{}
	queue chan *task[T]
	done  chan error // emit's first error, once the queue is drained
	// failed is closed when emit fails: nothing more can be written, so
	// nothing more should start.
	failed chan struct{}
}

type task[T any] struct {
	done chan struct{}
	res  T
}

func newPool[T any](jobs int, emit func(res T) error) *pool[T] {
	jobs = max(jobs, 1)
	p := &pool[T]{
		sem:    make(chan struct{}, jobs),
		queue:  make(chan *task[T], 2*jobs),
		done:   make(chan error, 1),
		failed: make(chan struct{}),
	}
	go func() {
		var err error
		for t := range p.queue {
			<-t.done
			if err != nil {
				continue // drain, so that no sender blocks
			}
			if err = emit(t.res); err != nil {
				close(p.failed)
			}
		}
		p.done <- err
	}()
	return p
}

// ready queues a result that needs no work (a skipped or invalid request).
func (p *pool[T]) ready(ctx context.Context, res T) bool {
	if ctx.Err() != nil {
		return false
	}
	t := &task[T]{done: make(chan struct{}), res: res}
	close(t.done)
	select {
	case p.queue <- t:
		return true
	case <-ctx.Done():
	case <-p.failed:
	}
	return false
}

// start runs work once a job is free, with its result queued in order; it
// returns false, without running it, when ctx ends or emit failed first.
func (p *pool[T]) start(ctx context.Context, work func() T) bool {
	if ctx.Err() != nil {
		return false // select would pick a free job as often as the end
	}
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return false
	case <-p.failed:
		return false
	}
	if ctx.Err() != nil {
		<-p.sem
		return false
	}
	t := &task[T]{done: make(chan struct{})}
	select {
	case p.queue <- t:
	case <-ctx.Done():
		<-p.sem
		return false
	case <-p.failed:
		<-p.sem
		return false
	}
	go func() {
		defer close(t.done)
		defer func() { <-p.sem }()
		t.res = work()
	}()
	return true
}

// wait returns once every result was emitted, with emit's first error.
func (p *pool[T]) wait() error {
	close(p.queue)
	return <-p.done
}
