// Package datasets lists the real data sets that Marple's experiments,
// benchmarks and documentation use (the folder ../shared/data beside a
// clone), one line per file with its size and SHA-256 checksum, and
// checks and fetches them.
//
// The list is the manifest embedded in the package (manifest.tsv): for
// each file its path in the data folder, its checksum and size, and, when
// a public repository holds the same bytes, the raw URL of that file at a
// fixed commit; a file converted from its public source says so instead.
// docs/data.md describes each data set: where it comes from, its format
// and how it was converted.
//
// Fetch downloads the files that are missing or differ, from their public
// URL or from a mirror of the whole folder (FetchOptions.From), checks
// every byte against the manifest and writes each file atomically; Check
// compares a folder with the manifest without any network.
package datasets

import (
	"bufio"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/marple-mln/marple/atomicfile"
)

//go:embed manifest.tsv
var manifest string

// folder holds the data folder's own descriptions (README.md and each
// data set's SOURCE.txt), which no public repository holds: Fetch writes
// them from here.
//
//go:embed folder
var folder embed.FS

// File is one file of a data set.
type File struct {
	// Path is the file's path in the data folder, with forward slashes:
	// "imdb/imdb.1.db". Its first element names the data set.
	Path string
	// SHA256 is the hex SHA-256 of its content, and Size its length.
	SHA256 string
	Size   int64
	// URL, when not empty, is a public copy of the same bytes (a raw file
	// of a repository at a fixed commit).
	URL string
	// Note says where a file without URL comes from ("converted: ...").
	Note string
}

// Set returns the data set the file belongs to: the first element of its
// path ("" for a file at the top of the folder, such as README.md).
func (f File) Set() string {
	if i := strings.IndexByte(f.Path, '/'); i >= 0 {
		return f.Path[:i]
	}
	return ""
}

// Files returns the embedded manifest: every file of the data folder, in
// order of path.
func Files() []File {
	fs, err := ParseManifest(strings.NewReader(manifest))
	if err != nil {
		panic("datasets: the embedded manifest: " + err.Error())
	}
	return fs
}

// Sets returns the names of the data sets of files, sorted.
func Sets(files []File) []string {
	var out []string
	for _, f := range files {
		if s := f.Set(); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// Select returns the files of the named data sets (every file when names
// is empty; the files at the top of the folder come with any selection).
// An unknown name is an error that lists the data sets.
func Select(files []File, names []string) ([]File, error) {
	if len(names) == 0 {
		return files, nil
	}
	sets := Sets(files)
	for _, n := range names {
		if !slices.Contains(sets, n) {
			return nil, fmt.Errorf("unknown data set %q: the data sets are %s", n, strings.Join(sets, ", "))
		}
	}
	var out []File
	for _, f := range files {
		if s := f.Set(); s == "" || slices.Contains(names, s) {
			out = append(out, f)
		}
	}
	return out, nil
}

// ParseManifest reads a manifest: a header line, then one line per file
// with the tab-separated columns path, sha256, size, url and note.
func ParseManifest(r io.Reader) ([]File, error) {
	sc := bufio.NewScanner(r)
	var out []File
	line := 0
	seen := map[string]bool{}
	for sc.Scan() {
		line++
		if line == 1 || strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 5 {
			return nil, fmt.Errorf("manifest:%d: %d columns, want 5 (path, sha256, size, url, note)", line, len(cols))
		}
		size, err := strconv.ParseInt(cols[2], 10, 64)
		if err != nil || size < 0 {
			return nil, fmt.Errorf("manifest:%d: bad size %q", line, cols[2])
		}
		f := File{Path: cols[0], SHA256: cols[1], Size: size, URL: cols[3], Note: cols[4]}
		if b, err := hex.DecodeString(f.SHA256); err != nil || len(b) != sha256.Size {
			return nil, fmt.Errorf("manifest:%d: bad SHA-256 %q", line, f.SHA256)
		}
		if !validPath(f.Path) {
			return nil, fmt.Errorf("manifest:%d: bad path %q", line, f.Path)
		}
		if seen[f.Path] {
			return nil, fmt.Errorf("manifest:%d: %s listed twice", line, f.Path)
		}
		seen[f.Path] = true
		out = append(out, f)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// validPath reports whether p is a clean relative path inside the folder.
func validPath(p string) bool {
	return p != "" && !strings.HasPrefix(p, "/") && path.Clean(p) == p && p != ".." && !strings.HasPrefix(p, "../") && !strings.Contains(p, "\\")
}

// Problem is a file of the manifest that a folder lacks or holds with
// other content.
type Problem struct {
	File File
	What string // "missing", or how the content differs
}

func (p Problem) String() string { return p.File.Path + ": " + p.What }

// Check compares the files of dir with files and returns those that are
// missing or differ (by size, then by checksum). An error is returned only
// when dir cannot be read at all.
func Check(ctx context.Context, dir string, files []File) ([]Problem, error) {
	if fi, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	var out []Problem
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if what := checkFile(filepath.Join(dir, filepath.FromSlash(f.Path)), f); what != "" {
			out = append(out, Problem{f, what})
		}
	}
	return out, nil
}

// checkFile returns "" when p holds f's content, else what is wrong.
func checkFile(p string, f File) string {
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "missing"
	case err != nil:
		return err.Error()
	case fi.Size() != f.Size:
		return fmt.Sprintf("%d bytes, want %d", fi.Size(), f.Size)
	}
	r, err := os.Open(p)
	if err != nil {
		return err.Error()
	}
	defer r.Close()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return err.Error()
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != f.SHA256 {
		return "SHA-256 " + got + ", want " + f.SHA256
	}
	return ""
}

// FetchOptions are the settings of Fetch.
type FetchOptions struct {
	// From, when set, is a mirror of the whole data folder: an http(s)://
	// or file:// URL, or a local directory, under which each file has its
	// manifest path. Without it each file comes from its own URL, and a
	// file without one cannot be fetched.
	From string
	// Client makes the HTTP requests (nil: a client whose requests time
	// out after Timeout).
	Client *http.Client
	// Timeout bounds each HTTP request, body included (0: 2 minutes).
	Timeout time.Duration
	// Progress, when set, is called before each file is fetched, with the
	// number of files done so far and the number to fetch.
	Progress func(done, total int, f File)
}

// FetchStats say what Fetch did.
type FetchStats struct {
	Present int   // files already in place with the right content
	Fetched int   // files downloaded and checked
	Bytes   int64 // bytes downloaded
}

// Fetch makes dir hold every file of files: a file already there with
// the manifest's content is kept, any other is downloaded (from its URL
// or from opt.From), checked against the manifest's size and SHA-256 and
// written atomically, so that an interrupted or failed fetch leaves no
// partial file. It fetches what it can and returns an error naming every
// file it could not fetch.
func Fetch(ctx context.Context, dir string, files []File, opt FetchOptions) (FetchStats, error) {
	var st FetchStats
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	client := opt.Client
	if client == nil {
		client = &http.Client{Timeout: timeout}
	}
	var todo []File
	for _, f := range files {
		if checkFile(filepath.Join(dir, filepath.FromSlash(f.Path)), f) == "" {
			st.Present++
		} else {
			todo = append(todo, f)
		}
	}
	var failed []string
	for i, f := range todo {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		src, err := source(f, opt.From)
		if err != nil {
			failed = append(failed, f.Path+": "+err.Error())
			continue
		}
		if opt.Progress != nil {
			opt.Progress(i, len(todo), f)
		}
		n, err := fetchFile(ctx, client, timeout, dir, f, src)
		if err != nil {
			if ctx.Err() != nil {
				return st, ctx.Err()
			}
			failed = append(failed, f.Path+": "+err.Error())
			continue
		}
		st.Fetched++
		st.Bytes += n
	}
	if len(failed) > 0 {
		return st, fmt.Errorf("%d of %d files not fetched:\n  %s", len(failed), len(todo), strings.Join(failed, "\n  "))
	}
	return st, nil
}

// embedded is the source of a file written from the package's own copy.
const embedded = "embedded:"

// source returns where f comes from: under the mirror from, its URL, or
// the package's own copy.
func source(f File, from string) (string, error) {
	if from == "" {
		if _, err := fs.Stat(folder, "folder/"+f.Path); err == nil && f.URL == "" {
			return embedded + f.Path, nil
		}
		if f.URL == "" {
			note := f.Note
			if note == "" {
				note = "no public copy of this file"
			}
			return "", fmt.Errorf("%s; fetch it from a mirror of the data folder (-from)", note)
		}
		return f.URL, nil
	}
	if u, err := url.Parse(from); err == nil && (u.Scheme == "http" || u.Scheme == "https" || u.Scheme == "file") {
		return strings.TrimSuffix(from, "/") + "/" + f.Path, nil
	}
	return filepath.Join(from, filepath.FromSlash(f.Path)), nil
}

// fetchFile downloads f from src into dir, checking it, and returns its
// size.
func fetchFile(ctx context.Context, client *http.Client, timeout time.Duration, dir string, f File, src string) (int64, error) {
	body, err := open(ctx, client, timeout, src)
	if err != nil {
		return 0, err
	}
	defer body.Close()
	dest := filepath.Join(dir, filepath.FromSlash(f.Path))
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return 0, err
	}
	var n int64
	err = atomicfile.Write(dest, func(w io.Writer) error {
		h := sha256.New()
		// One byte more than the manifest's size tells a longer file.
		n, err = io.Copy(io.MultiWriter(w, h), io.LimitReader(body, f.Size+1))
		if err != nil {
			return fmt.Errorf("reading %s: %w", src, err)
		}
		if n != f.Size {
			return fmt.Errorf("%s: %d bytes or more, want %d", src, n, f.Size)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != f.SHA256 {
			return fmt.Errorf("%s: SHA-256 %s, want %s", src, got, f.SHA256)
		}
		return nil
	})
	return n, err
}

// open returns the content at src: an http(s) or file URL, or a path.
func open(ctx context.Context, client *http.Client, timeout time.Duration, src string) (io.ReadCloser, error) {
	if p, ok := strings.CutPrefix(src, embedded); ok {
		return folder.Open("folder/" + p)
	}
	u, err := url.Parse(src)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		if err == nil && u.Scheme == "file" {
			src = u.Path
		}
		return os.Open(src)
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, src, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		cancel()
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("%s: %s", src, resp.Status)
	}
	return cancelCloser{resp.Body, cancel}, nil
}

// cancelCloser releases a request's context when its body is closed.
type cancelCloser struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c cancelCloser) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}
