package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
	"github.com/gp-sandbox/gp-sandbox/sandbox/yamlfile"
)

// folderFlag turns the path given to --scenarios or --fixtures into the files to read,
// checking it first so that a mistake names the path as given: past this point the
// loaders see only a file system rooted in it. An empty path is the embedded set.
// With fileOK, a single file stands for a folder holding only that file.
func folderFlag(flag, kind, path string, fileOK bool) (app.Files, error) {
	if path == "" {
		return app.Files{}, nil
	}
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && fileOK && yamlfile.IsYAMLName(path):
		return app.Files{}, usageError(fmt.Sprintf("%s file %s: no such file", strings.TrimSuffix(kind, "s"), path))
	case errors.Is(err, fs.ErrNotExist):
		return app.Files{}, usageError(fmt.Sprintf("%s folder %s (--%s): no such folder", kind, path, flag))
	case err != nil:
		return app.Files{}, usageError(fmt.Sprintf("%s folder %s (--%s): %v", kind, path, flag, err))
	case info.IsDir():
		return app.Files{Dir: path}, nil
	case !fileOK:
		return app.Files{}, usageError(fmt.Sprintf("%s folder %s (--%s): not a folder", kind, path, flag))
	case !yamlfile.IsYAMLName(path):
		return app.Files{}, usageError(fmt.Sprintf("%s file %s: not a folder, nor a *.yaml or *.yml file", strings.TrimSuffix(kind, "s"), path))
	}
	dir := filepath.Dir(path)
	// Dir names the problems' files; FS shows the loaders this one file only.
	return app.Files{Dir: dir, FS: oneFile{dir: os.DirFS(dir), entry: fs.FileInfoToDirEntry(info)}}, nil
}

// noYAMLFiles tells whether files, read from a folder, holds no file the loaders
// read; an unreadable folder is left for the loaders to report.
func noYAMLFiles(files app.Files) bool {
	fsys := files.FS
	if fsys == nil {
		if files.Dir == "" {
			return false // embedded
		}
		fsys = os.DirFS(files.Dir)
	}
	names, err := yamlfile.YAMLFiles(fsys)
	return err == nil && len(names) == 0
}

// oneFile is a folder that shows only one of its files.
type oneFile struct {
	dir   fs.FS
	entry fs.DirEntry
}

func (o oneFile) Open(name string) (fs.File, error) {
	if name != o.entry.Name() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return o.dir.Open(name)
}

// Stat lets the loaders look at the file without opening it (a named pipe).
func (o oneFile) Stat(name string) (fs.FileInfo, error) {
	if name != o.entry.Name() {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return fs.Stat(o.dir, name)
}

func (o oneFile) ReadDir(name string) ([]fs.DirEntry, error) {
	if name != "." {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return []fs.DirEntry{o.entry}, nil
}
