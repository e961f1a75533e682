//go:build unix

package runfiles

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock on f without waiting; busy when
// another open file description holds it. A file system without flock
// (ENOLCK, ENOTSUP, EINVAL: some network file systems) is written
// without the lock rather than refused; held says whether the lock was
// taken.
func tryLock(f *os.File) (busy, held bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	switch {
	case err == nil:
		return false, true, nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		return true, false, nil
	case errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.ENOTSUP), errors.Is(err, syscall.EINVAL):
		return false, false, nil
	}
	return false, false, err
}
