package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// explainDBAccess adds what a user can do to an error opening the database that
// comes from file permissions. The usual cause is the container: the image runs as
// uid 65532, and a host folder bind-mounted on /data belongs to the host's user.
func explainDBAccess(err error, db string) error {
	if err == nil || !errors.Is(err, fs.ErrPermission) {
		return err
	}
	return fmt.Errorf("%w\nthe database folder %s is not writable by uid %d gid %d (this process): "+
		"with a host folder mounted on /data, run the container as the folder's owner "+
		"(docker run --user \"$(id -u):$(id -g)\" ...) or give the folder to uid %d "+
		"(chown %d:%d <folder>); or choose another --db",
		err, filepath.Dir(db), os.Getuid(), os.Getgid(), os.Getuid(), os.Getuid(), os.Getgid())
}
