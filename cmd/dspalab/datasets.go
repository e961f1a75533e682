package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/dspalab/dspalab/datasets"
	"github.com/dspalab/dspalab/datasets/gcs"
	"github.com/dspalab/dspalab/sim/scenario"
)

// datasetsExitHelp is the exit status of the datasets commands.
const datasetsExitHelp = `Exit status:
  0    success
  1    an unknown data set, a part not in the cache (path), corrupt or not
       matching the registry (verify), a failed download, the bucket out of
       reach, or output that could not be written
  2    usage error (unknown command or flag, bad flag value, missing argument)
  130  interrupted (Ctrl-C or SIGTERM); a fetch keeps the bytes received and
       resumes from them`

// datasetsFlags are the flags the datasets commands share.
type datasetsFlags struct {
	registry string // --registry FILE
	parts    string // --parts SEL
	fetch    datasets.FetchOptions
	gcs      gcs.Options // --auth, --endpoint
}

// fetchOptions are the options of a fetch from GCS with the flags given.
func (f *datasetsFlags) fetchOptions() datasets.FetchOptions {
	opts := f.fetch
	opts.Open = f.gcs.Open
	return opts
}

func (f *datasetsFlags) load() (*datasets.Registry, datasets.Cache, error) {
	reg, err := datasets.LoadRegistry(f.registry)
	if err != nil {
		return nil, datasets.Cache{}, err
	}
	c, err := datasets.DefaultCache()
	return reg, c, err
}

// lookup returns the data set name and the parts selected by --parts
// (sel: the default selection when --parts is not given).
func (f *datasetsFlags) lookup(cmd *cobra.Command, name, sel string) (*datasets.Dataset, []int, datasets.Cache, error) {
	reg, c, err := f.load()
	if err != nil {
		return nil, nil, c, err
	}
	ds, err := reg.Lookup(name)
	if err != nil {
		return nil, nil, c, err
	}
	if cmd.Flags().Changed("parts") {
		sel = f.parts
	}
	parts, err := ds.SelectParts(sel)
	if err != nil {
		return nil, nil, c, &usageError{fmt.Errorf("--parts: %w", err)}
	}
	return ds, parts, c, nil
}

func newDatasetsCmd() *cobra.Command {
	f := &datasetsFlags{}
	cmd := &cobra.Command{
		Use:   "datasets",
		Short: "List, fetch and verify the course's data sets (Google Cloud Storage)",
		Long: `Data sets are CSV or CSV.gz files in Google Cloud Storage that scenarios
replay as trace sources (arrival: {process: trace, trace: {dataset: NAME}}).
The built-in registry holds the Google cluster trace 2011
(clusterdata-2011-2/job_events and clusterdata-2011-2/task_events, 500 parts
each); ~/.config/dspalab/datasets.yaml, $DSPALAB_REGISTRY or --registry FILE
add more, such as a course's own bucket.

Fetched parts are kept in a cache: $DSPALAB_CACHE, else dspalab in the user
cache directory (~/.cache/dspalab). A file is there only once complete and
verified against the object's size, CRC32C and MD5. Without a fetched part,
a scenario replays the data set's embedded offline sample, if it has one;
'dspalab datasets export' writes that sample out, for pandas offline.

` + datasetsExitHelp,
		Example: `  dspalab datasets list
  dspalab datasets info clusterdata-2011-2/task_events
  dspalab datasets fetch clusterdata-2011-2/task_events --parts 0-2
  dspalab datasets verify clusterdata-2011-2/task_events
  dspalab datasets path clusterdata-2011-2/task_events --parts 1   # for pandas
  dspalab datasets export clusterdata-2011-2/task_events          # the offline sample, for pandas
  dspalab datasets clean clusterdata-2011-2/task_events`,
		Args: usage(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.PersistentFlags().StringVar(&f.registry, "registry", "", "read the user registry from `FILE` (default $DSPALAB_REGISTRY or ~/.config/dspalab/datasets.yaml)")
	names := func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		reg, err := datasets.LoadRegistry(f.registry)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []string
		for _, ds := range reg.Datasets() {
			out = append(out, ds.Name)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	partsFlag := func(c *cobra.Command, what string) {
		c.Flags().StringVar(&f.parts, "parts", "", "the parts "+what+": 1, 0-2, 0,3-5 or all")
	}
	remoteFlags := func(c *cobra.Command) {
		c.Flags().BoolVar(&f.gcs.Auth, "auth", false, "use Application Default Credentials (gcloud auth application-default login) for a private bucket; default: anonymous")
		c.Flags().StringVar(&f.gcs.Endpoint, "endpoint", "", "GCS endpoint `URL`, e.g. http://localhost:4443 for an emulator (STORAGE_EMULATOR_HOST works too)")
	}

	list := &cobra.Command{
		Use:   "list",
		Short: "List the data sets with their parts, cached parts and offline samples",
		Args:  usage(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			reg, c, err := f.load()
			if err != nil {
				return err
			}
			return datasets.WriteList(cmd.OutOrStdout(), reg, c)
		},
	}

	var remote bool
	info := &cobra.Command{
		Use:               "info NAME",
		Short:             "Show a data set: objects, columns, codes, licence, known and cached parts",
		Args:              needArgs(1, 1, "the name of a data set", "dspalab datasets list lists them"),
		ValidArgsFunction: names,
		RunE: func(cmd *cobra.Command, args []string) error {
			ds, _, c, err := f.lookup(cmd, args[0], "all")
			if err != nil {
				return err
			}
			// the bucket first: offline, --remote fails before the page
			// is printed, not after it
			var objs []datasets.ObjectInfo
			if remote {
				if objs, err = datasets.ListObjects(cmd.Context(), ds, 0, f.fetchOptions()); err != nil {
					return err
				}
			}
			if err := datasets.WriteInfo(cmd.OutOrStdout(), ds, c); err != nil {
				return err
			}
			if !remote {
				return nil
			}
			fmt.Fprintln(cmd.OutOrStdout())
			return datasets.WriteObjects(cmd.OutOrStdout(), ds.Bucket, objs)
		},
	}
	info.Flags().BoolVar(&remote, "remote", false, "also list the data set's objects in the bucket")
	remoteFlags(info)

	fetch := &cobra.Command{
		Use:   "fetch NAME",
		Short: "Download parts of a data set into the cache, verified",
		Long: `Download parts of a data set into the cache (default: the data set's
default parts, part 1 of the cluster trace), several at a time. An
interrupted download resumes where it stopped on the next fetch, and so
does one whose server sends nothing for --stall-timeout; every file is
checked against the object's size, CRC32C and MD5 before it enters the
cache. Parts already cached are skipped once their size and CRC32C are
checked again (a truncated or damaged file is fetched again; --force
fetches every part again). Two fetches of one part into one cache do not
clash: the second waits for the first.`,
		Example: `  dspalab datasets fetch clusterdata-2011-2/task_events --parts 0-2
  dspalab datasets fetch course/rides --auth          # a private course bucket`,
		Args:              needArgs(1, 1, "the name of a data set", "dspalab datasets list lists them"),
		ValidArgsFunction: names,
		RunE: func(cmd *cobra.Command, args []string) error {
			ds, parts, c, err := f.lookup(cmd, args[0], "")
			if err != nil {
				return err
			}
			if f.fetch.Jobs < 1 {
				return usagef("--jobs must be at least 1, got %d", f.fetch.Jobs)
			}
			if f.fetch.StallTimeout <= 0 {
				return usagef("--stall-timeout must be longer than 0, got %s", f.fetch.StallTimeout)
			}
			return runFetch(cmd, ds, parts, c, f.fetchOptions())
		},
	}
	partsFlag(fetch, "to fetch (default: the data set's default parts)")
	remoteFlags(fetch)
	fetch.Flags().IntVar(&f.fetch.Jobs, "jobs", 4, "parts to download at once")
	fetch.Flags().BoolVar(&f.fetch.Force, "force", false, "fetch parts that are already in the cache again")
	fetch.Flags().DurationVar(&f.fetch.StallTimeout, "stall-timeout", datasets.DefaultStallTimeout, "give a download up when the server sends nothing for this `duration` (it resumes a few times, then the bytes received are kept for the next fetch)")

	verify := &cobra.Command{
		Use:   "verify NAME",
		Short: "Check cached parts against the checksums recorded when they were fetched",
		Long: `Recompute the size, CRC32C and MD5 of cached parts (default: every cached
part of the data set) and compare them with the object's attributes
recorded at fetch time and with the registry's. Exit status 1 when a part
is corrupt or, with --parts, missing. The rows of each file are counted
and compared with the rows the registry declares, and the data set's
offline sample, if any, is checked too (without --parts): a mismatch means
the registry is wrong (the limits estimate relies on its rows).`,
		Args:              needArgs(1, 1, "the name of a data set", "dspalab datasets list lists them"),
		ValidArgsFunction: names,
		RunE: func(cmd *cobra.Command, args []string) error {
			ds, parts, c, err := f.lookup(cmd, args[0], "all")
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			withSample := !cmd.Flags().Changed("parts")
			if withSample {
				parts = slices.DeleteFunc(parts, func(n int) bool { return !c.Has(ds, n) })
				if len(parts) == 0 {
					if _, err := fmt.Fprintf(out, "no part of %s is in the cache (%s): nothing to verify but the sample; fetch a part with: dspalab datasets fetch %s --parts 1\n", ds.Name, c.Dir, ds.Name); err != nil {
						return err
					}
				}
			}
			var failed []string
			mismatched := 0
			for _, n := range parts {
				r := c.Verify(ds, n)
				switch r.Status {
				case datasets.VerifyOK, datasets.VerifyNoSums:
				case datasets.VerifyMismatch:
					mismatched++
				default:
					failed = append(failed, fmt.Sprint(n))
				}
				if _, err := fmt.Fprintf(out, "part %d: %s: %s (%s)\n", n, r.Status, r.Detail, r.Path); err != nil {
					return err
				}
			}
			if r, ok := datasets.VerifySample(ds); ok && withSample {
				if r.Status == datasets.VerifyMismatch || r.Status == datasets.VerifyCorrupt || r.Status == datasets.VerifyError {
					mismatched++
				}
				if _, err := fmt.Fprintf(out, "sample of part %d: %s: %s (%s)\n", r.Part, r.Status, r.Detail, r.Path); err != nil {
					return err
				}
			}
			var errs []error
			if len(failed) > 0 {
				errs = append(errs, fmt.Errorf("%d of %d parts failed; fetch again with: dspalab datasets fetch %s --force --parts %s",
					len(failed), len(parts), ds.Name, strings.Join(failed, ",")))
			}
			if mismatched > 0 {
				errs = append(errs, fmt.Errorf("%s: the files do not match the %s registry (%d mismatched); correct the registry", ds.Name, ds.Origin, mismatched))
			}
			return errors.Join(errs...)
		},
	}
	partsFlag(verify, "to verify (default: every cached part)")

	path := &cobra.Command{
		Use:   "path [NAME]",
		Short: "Print the cache directory, or the cached files of a data set",
		Long: `Without NAME, print the cache directory. With NAME, print the cached file
of each part selected (default: the data set's default parts), one a line,
for notebooks and scripts; exit status 1 when one is not cached.`,
		Example:           `  python -c "import pandas as pd; print(pd.read_csv('$(dspalab datasets path clusterdata-2011-2/task_events)', header=None))"`,
		Args:              usage(cobra.MaximumNArgs(1)),
		ValidArgsFunction: names,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				_, c, err := f.load()
				if err != nil {
					return err
				}
				_, err = fmt.Fprintln(cmd.OutOrStdout(), c.Dir)
				return err
			}
			ds, parts, c, err := f.lookup(cmd, args[0], "")
			if err != nil {
				return err
			}
			var missing []string
			for _, n := range parts {
				if !c.Has(ds, n) {
					missing = append(missing, fmt.Sprint(n))
					continue
				}
				if _, err := fmt.Fprintln(cmd.OutOrStdout(), c.Path(ds, n)); err != nil {
					return err
				}
			}
			if len(missing) > 0 {
				offline := ""
				if ds.Sample != nil {
					offline = fmt.Sprintf("; offline, 'dspalab datasets export %s' writes the sample of part %d", ds.Name, ds.Sample.Part)
				}
				return fmt.Errorf("%s: part %s not in the cache; fetch with: dspalab datasets fetch %s --parts %s%s",
					ds.Name, strings.Join(missing, ", "), ds.Name, strings.Join(missing, ","), offline)
			}
			return nil
		},
	}
	partsFlag(path, "whose files to print (default: the data set's default parts)")

	var all bool
	clean := &cobra.Command{
		Use:   "clean [NAME]",
		Short: "Remove cached parts of a data set (or, with --all, the whole cache)",
		Args:  usage(cobra.MaximumNArgs(1)),
		Example: `  dspalab datasets clean clusterdata-2011-2/task_events --parts 0
  dspalab datasets clean --all`,
		ValidArgsFunction: names,
		RunE: func(cmd *cobra.Command, args []string) error {
			var files int
			var bytes int64
			switch {
			case len(args) == 0 && !all:
				return usagef("name a data set, or give --all to remove the whole cache")
			case len(args) == 1 && all:
				return usagef("give a data set or --all, not both")
			case all:
				_, c, err := f.load()
				if err != nil {
					return err
				}
				if files, bytes, err = c.RemoveAll(); err != nil {
					return err
				}
			default:
				ds, parts, c, err := f.lookup(cmd, args[0], "all")
				if err != nil {
					return err
				}
				if files, bytes, err = c.Remove(ds, parts); err != nil {
					return err
				}
			}
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "removed %d %s (%s)\n", files, map[bool]string{true: "file", false: "files"}[files == 1], scenario.FormatByteSize(bytes))
			return err
		},
	}
	partsFlag(clean, "to remove (default: all)")
	clean.Flags().BoolVar(&all, "all", false, "remove every cached data set")

	var exportDir string
	var exportForce bool
	export := &cobra.Command{
		Use:   "export NAME [--dir DIR]",
		Short: "Write a data set's offline sample into a directory, for pandas without the network",
		Long: `Write the offline sample of a data set (embedded in dspalab for the
built-in registry) into DIR (default: the current directory) under its own
name, and print the file's path. The file is checked against the sample's
SHA-256 and appears only once complete; an existing file is never replaced
without --force. It is the data a scenario replays offline, so a notebook
can load the same rows without fetching anything.`,
		Example: `  dspalab datasets export clusterdata-2011-2/task_events --dir data/
  python -c "import pandas as pd; print(pd.read_csv('$(dspalab datasets export clusterdata-2011-2/task_events --force)', header=None))"`,
		Args: func(cmd *cobra.Command, args []string) error {
			// "export NAME DIR": the second argument is the directory
			// it meant, which --dir names
			if len(args) == 2 && !cmd.Flags().Changed("dir") {
				return usagef("datasets export takes one argument, the name of a data set; got 2: %s %s (to write into %s, use --dir %s)", args[0], args[1], args[1], args[1])
			}
			return needArgs(1, 1, "the name of a data set", "dspalab datasets list lists them")(cmd, args)
		},
		ValidArgsFunction: names,
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := datasets.LoadRegistry(f.registry)
			if err != nil {
				return err
			}
			ds, err := reg.Lookup(args[0])
			if err != nil {
				return err
			}
			p, err := datasets.ExportSample(ds, exportDir, exportForce)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), p)
			return err
		},
	}
	export.Flags().StringVar(&exportDir, "dir", ".", "write the sample into `DIR` (created if missing)")
	export.Flags().BoolVar(&exportForce, "force", false, "replace a file of the same name")

	cmd.AddCommand(list, info, fetch, verify, path, export, clean)
	return cmd
}

// runFetch fetches with a progress bar on a terminal (stderr), or one line
// per part otherwise.
func runFetch(cmd *cobra.Command, ds *datasets.Dataset, parts []int, c datasets.Cache, opts datasets.FetchOptions) error {
	stderr := cmd.ErrOrStderr()
	var logBuf bytes.Buffer
	opts.Log = stderr
	var bar *progressbar.ProgressBar
	if isTerminal(stderr) {
		opts.Log = &logBuf // printed after the bar
		bar = progressbar.NewOptions64(-1,
			progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription("fetching "+ds.Name),
			progressbar.OptionShowBytes(true),
			progressbar.OptionShowCount(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionSetWidth(30),
		)
		opts.Progress = func(done, total int64) {
			if bar.GetMax64() != total {
				bar.ChangeMax64(total)
			}
			bar.Set64(done)
		}
	}
	res, err := datasets.Fetch(cmd.Context(), c, ds, parts, opts)
	if bar != nil {
		bar.Finish()
		io.Copy(stderr, &logBuf)
	}
	var got, cached int
	var bytes int64
	for _, r := range res {
		switch {
		case r.Cached:
			cached++
		case r.Err == nil:
			got++
			bytes += r.Size
		}
	}
	fmt.Fprintf(stderr, "%s: %d fetched (%s), %d already cached, %d failed; cache: %s\n",
		ds.Name, got, scenario.FormatByteSize(bytes), cached, len(res)-got-cached, c.Dir)
	if err != nil && cmd.Context().Err() != nil {
		return errors.Join(errors.New("interrupted: the bytes received are kept; fetch again to resume"), err)
	}
	return err
}
