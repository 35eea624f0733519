package export

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

func TestZZDbg(t *testing.T) {
	dir := t.TempDir()
	files := writeSFT(t, dir, Options{}, map[string][]SFTRow{"train": {sampleSFT(1)}})
	pf, _ := file.OpenParquetFile(abs(dir, files[0]), false)
	fr, _ := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	tbl, err := fr.ReadRowGroups(t.Context(), nil, []int{0})
	t.Log(err, tbl.NumRows(), tbl.NumCols())
	for i := 0; i < int(tbl.NumCols()); i++ {
		t.Log(i, tbl.Column(i).Len(), tbl.Column(i).Name())
	}
}
