package plot

import (
	"fmt"
	"image/color"
	"io"
	"path/filepath"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Format is the file format of a figure.
type Format string

// Formats a figure can be written in.
const (
	PNG Format = "png" // raster, 150 dots per inch
	SVG Format = "svg" // vector; fonts named, not embedded
	PDF Format = "pdf" // vector, fonts embedded
)

// FormatOf returns the format a file name's extension asks for (.png,
// .svg or .pdf, in any case), or an error naming the three.
func FormatOf(name string) (Format, error) {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(name), "."))
	switch Format(ext) {
	case PNG, SVG, PDF:
		return Format(ext), nil
	}
	if ext == "" {
		return "", fmt.Errorf("%s has no extension; name the figure .png, .svg or .pdf", name)
	}
	return "", fmt.Errorf("cannot write .%s figures; name the figure .png, .svg or .pdf", ext)
}

// Default sizes of a figure.
const (
	DefaultWidth       = 9 * vg.Inch
	DefaultPanelHeight = 2.7 * vg.Inch
	dpi                = 150
)

// Figure is a drawing ready to be written: panels stacked vertically under
// a title, sharing one legend in a column on the right (so that it never
// covers data), and an optional color scale under the panels. Build one
// with TimeSeries, LatencyCDF, Heatmap or Tradeoff.
type Figure struct {
	Title string
	// Panels are drawn top to bottom, their data areas aligned.
	Panels []*gplot.Plot
	// Width of the whole figure and height of each panel.
	Width, PanelHeight vg.Length

	// Caption holds lines of text under the panels: what the figure
	// leaves out, how a curve was estimated.
	Caption []string

	legend   []legendEntry
	colorBar *gplot.Plot
}

type legendEntry struct {
	name   string
	thumbs []gplot.Thumbnailer
}

// maxLegendEntries bounds the legend; the rest are summed up in one line.
const maxLegendEntries = 28

func newFigure(title string) *Figure {
	return &Figure{Title: title, Width: DefaultWidth, PanelHeight: DefaultPanelHeight}
}

// AddLegend adds an entry to the figure's legend.
func (f *Figure) AddLegend(name string, thumbs ...gplot.Thumbnailer) {
	f.legend = append(f.legend, legendEntry{name, thumbs})
}

// Size returns the figure's width and height.
func (f *Figure) Size() (w, h vg.Length) {
	h = f.titleHeight() + vg.Length(len(f.Panels))*f.PanelHeight
	if f.colorBar != nil {
		h += colorBarHeight
	}
	return f.Width, h + f.captionHeight()
}

func (f *Figure) captionStyle() text.Style {
	return text.Style{
		Color:   color.Gray{Y: 50},
		Font:    font.From(sans, 9),
		XAlign:  draw.XLeft,
		YAlign:  draw.YBottom,
		Handler: gplot.DefaultTextHandler,
	}
}

func (f *Figure) captionHeight() vg.Length {
	if len(f.Caption) == 0 {
		return 0
	}
	return f.captionStyle().Height(strings.Join(f.Caption, "\n")) + vg.Points(margin)
}

const (
	colorBarHeight = 0.85 * vg.Inch
	margin         = 6 // points
)

func (f *Figure) titleStyle() text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    font.From(sans, 14), // regular: vgpdf cannot embed the bold face
		XAlign:  draw.XCenter,
		YAlign:  draw.YTop,
		Handler: gplot.DefaultTextHandler,
	}
}

func (f *Figure) titleHeight() vg.Length {
	if f.Title == "" {
		return vg.Points(margin)
	}
	return f.titleStyle().Height(f.Title) + vg.Points(2*margin)
}

// Draw draws the figure on c.
func (f *Figure) Draw(c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	if f.Title != "" {
		c.FillText(f.titleStyle(), vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y - vg.Points(margin)}, f.Title)
	}
	body := draw.Crop(c, vg.Points(margin), -vg.Points(margin), vg.Points(margin), -f.titleHeight())
	if len(f.Caption) > 0 {
		c.FillText(f.captionStyle(), vg.Point{X: c.Min.X + vg.Points(2*margin), Y: c.Min.Y + vg.Points(margin)}, strings.Join(f.Caption, "\n"))
		body = draw.Crop(body, 0, 0, f.captionHeight(), 0)
	}
	if len(f.legend) > 0 {
		ll := gplot.NewLegend()
		ll.TextStyle.Font = font.From(sans, 9)
		ll.Top, ll.Left = true, true
		ll.Padding = vg.Points(2)
		ll.ThumbnailWidth = vg.Points(22)
		entries := f.legend
		if len(entries) > maxLegendEntries {
			entries = entries[:maxLegendEntries-1]
		}
		for _, e := range entries {
			ll.Add(e.name, e.thumbs...)
		}
		if len(entries) < len(f.legend) {
			ll.Add(fmt.Sprintf("... and %d more", len(f.legend)-len(entries)))
		}
		r := ll.Rectangle(body)
		w := r.Max.X - r.Min.X + vg.Points(margin)
		col := draw.Crop(body, body.Max.X-body.Min.X-w, 0, 0, -vg.Points(8))
		ll.Draw(col)
		body = draw.Crop(body, 0, -w-vg.Points(margin), 0, 0)
	}
	var bar draw.Canvas
	if f.colorBar != nil {
		bar = draw.Crop(body, 0, 0, 0, -(body.Max.Y - body.Min.Y - colorBarHeight))
		body = draw.Crop(body, 0, 0, colorBarHeight, 0)
	}
	if len(f.Panels) == 0 {
		return
	}
	rows := make([][]*gplot.Plot, len(f.Panels))
	for i, p := range f.Panels {
		rows[i] = []*gplot.Plot{p}
	}
	tiles := draw.Tiles{Rows: len(f.Panels), Cols: 1, PadY: vg.Points(10)}
	canvases := gplot.Align(rows, tiles, body)
	for i, cv := range canvases {
		f.Panels[i].Draw(cv[0])
	}
	if f.colorBar != nil {
		// the scale spans the panels' data area
		da := f.Panels[0].DataCanvas(canvases[0][0])
		bar.Min.X, bar.Max.X = da.Min.X, da.Max.X
		f.colorBar.Draw(bar)
	}
}

// WriteTo draws the figure in format and writes it to w. A failure of
// the drawing library (it panics on some degenerate input) is returned as
// an error.
func (f *Figure) WriteTo(w io.Writer, format Format) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plot: drawing the figure: %v", r)
		}
	}()
	width, height := f.Size()
	var cv interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch format {
	case PNG:
		cv = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(dpi))}
	case SVG:
		cv = vgsvg.New(width, height)
	case PDF:
		pdf := vgpdf.New(width, height)
		pdf.EmbedFonts(true)
		cv = pdf
	default:
		return fmt.Errorf("plot: unknown format %q; use png, svg or pdf", format)
	}
	f.Draw(draw.New(cv))
	if _, err := cv.WriteTo(w); err != nil {
		return fmt.Errorf("plot: writing the figure: %w", err)
	}
	return nil
}
