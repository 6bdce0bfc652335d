package yamlfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

// documents parses every YAML document in data and returns the root node of each
// non-empty one. A syntax error ends the file (the parser cannot resume after one);
// the documents before it are still returned.
func documents(file string, data []byte) (roots []*yaml.Node, problems Problems) {
	// Should the parser panic on some input, report the file as unreadable rather than
	// take the sandbox down: files come from users, and the API accepts scenarios too.
	defer func() {
		if r := recover(); r != nil {
			problems = append(problems, Problem{File: file, Message: fmt.Sprintf("invalid YAML: parser failed: %v", r)})
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return roots, problems
		}
		if err != nil {
			return roots, append(problems, syntaxProblem(file, data, err))
		}
		root := &doc
		if doc.Kind == yaml.DocumentNode {
			if len(doc.Content) == 0 {
				continue
			}
			root = doc.Content[0]
		}
		if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
			continue // "---" with nothing after it
		}
		roots = append(roots, root)
	}
}

// YAMLFiles lists the files the loaders read at the root of fsys, in name order: every
// *.yaml and *.yml file, dotfiles and directories skipped.
func YAMLFiles(fsys fs.FS) ([]string, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries { // sorted by name
		if name := e.Name(); !e.IsDir() && !strings.HasPrefix(name, ".") && IsYAMLName(name) {
			names = append(names, name)
		}
	}
	return names, nil
}

// IsYAMLName reports whether a file of that name is one the loaders read: *.yaml or
// *.yml.
func IsYAMLName(name string) bool {
	ext := path.Ext(name)
	return ext == ".yaml" || ext == ".yml"
}

// eachYAMLFile hands every *.yaml and *.yml file at the root of fsys to read, in name
// order, skipping dotfiles and directories; a file that cannot be read, or that is
// over a limit, is a problem of its own (once the files together pass limits.total,
// the rest are not read). The error is for fsys itself, which could not be listed.
func eachYAMLFile(fsys fs.FS, kind string, limits fileLimits, problems *Problems, read func(name string, data []byte)) error {
	names, err := YAMLFiles(fsys)
	if err != nil {
		return fmt.Errorf("yamlfile: list %s files: %w", kind, err)
	}
	var total int64
	for _, name := range names {
		data, err := readBounded(fsys, name, limits.file)
		if err != nil {
			*problems = append(*problems, Problem{File: name, Message: err.Error()})
			continue
		}
		if total += int64(len(data)); limits.total > 0 && total > limits.total {
			*problems = append(*problems, Problem{File: name, Message: fmt.Sprintf(
				"the %s files up to this one total %d bytes, over the limit of %s for a directory", kind, total, byteSize(limits.total))})
			return nil
		}
		read(name, data)
	}
	return nil
}
