package agent

import (
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/synth-data/synth/dialog"
	"github.com/synth-data/synth/record"
)

func TestCallID(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9]{9}$`)
	seen := map[string]bool{}
	chars := map[byte]int{}
	for seed := range 20 {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		for range 500 {
			id := CallID(rng)
			if !re.MatchString(id) {
				t.Fatalf("CallID() = %q, not 9 alphanumerics", id)
			}
			if seen[id] {
				t.Errorf("CallID repeated %q", id)
			}
			seen[id] = true
			for i := range id {
				chars[id[i]]++
			}
		}
	}
	// Every character of the alphabet is used: upper, lower and digits.
	if len(chars) != len(idChars) {
		t.Errorf("%d distinct characters used, want %d", len(chars), len(idChars))
	}
	a := CallID(rand.New(rand.NewPCG(1, 2)))
	b := CallID(rand.New(rand.NewPCG(1, 2)))
	if a != b {
		t.Errorf("CallID is not deterministic: %q vs %q", a, b)
	}
}

// phraseBank is a list of templates the generic agent says, with the
// slots that every call saying it fills.
type phraseBank struct {
	tmpls []string
	slots []string
}

// phraseBanks are the templates the generic agent says (generic.go), each
// with the slots its calls fill. TestAgentSaysCheckedBanks holds this
// table to the code, so a new bank or a call that stops filling a slot
// fails here rather than sending "<slot>" to a customer.
var phraseBanks = map[string]phraseBank{
	"genericGreetIdentify":    {genericGreetIdentify, []string{"ids"}},
	"identifyAgain":           {identifyAgain, nil},
	"authed":                  {authed, []string{"first"}},
	"askHelp":                 {askHelp, nil},
	"askAnythingElse":         {askAnythingElse, nil},
	"closings":                {closings, []string{"first"}},
	"genericAskSearch":        {genericAskSearch, []string{"noun", "a_noun", "params", "grid"}},
	"genericAskTarget":        {genericAskTarget, []string{"noun", "key", "a_key"}},
	"genericAskTargetKey":     {genericAskTargetKey, []string{"noun", "key", "a_key"}},
	"genericAskSlot":          {genericAskSlot, []string{"what"}},
	"genericAskSaid":          {genericAskSaid, []string{"opts"}},
	"foundAgain":              {foundAgain, []string{"what"}},
	"genericAskCount":         {genericAskCount, []string{"what", "lo", "hi"}},
	"genericAskReason":        {genericAskReason, []string{"act"}},
	"genericAskReasonBare":    {genericAskReasonBare, nil},
	"genericAskGroup":         {genericAskGroup, []string{"what"}},
	"genericAskPick":          {genericAskPick, []string{"what"}},
	"genericAskChoice":        {genericAskChoice, []string{"noun", "what"}},
	"genericAskChoiceSame":    {genericAskChoiceSame, []string{"noun", "what"}},
	"genericAskOther":         {genericAskOther, []string{"noun", "what"}},
	"genericAskOtherSlot":     {genericAskOtherSlot, []string{"what"}},
	"writeFailed":             {writeFailed, []string{"why"}},
	"genericAskNew":           {genericAskNew, []string{"what"}},
	"genericAskNewOne":        {genericAskNewOne, []string{"what"}},
	"figureNone":              {figureNone, []string{"what", "value"}},
	"figureIsMoney":           {figureIsMoney, []string{"what", "value"}},
	"reasonTargetFound":       {reasonTargetFound, []string{"value", "noun", "Noun", "nouns"}},
	"reasonTargetNamed":       {reasonTargetNamed, []string{"value", "noun", "Noun", "nouns"}},
	"reasonUserKey":           {reasonUserKey, []string{"value"}},
	"reasonFromUser":          {reasonFromUser, []string{"what"}},
	"reasonPicked":            {reasonPicked, []string{"what", "value", "where"}},
	"reasonPickedOne":         {reasonPickedOne, []string{"what", "value", "where"}},
	"reasonPickedUnsaid":      {reasonPickedUnsaid, []string{"what", "value", "where"}},
	"reasonReplaced":          {reasonReplaced, []string{"what", "value"}},
	"reasonChosen":            {reasonChosen, []string{"what", "value"}},
	"reasonComputed":          {reasonComputed, []string{"what", "value"}},
	"reasonFromTarget":        {reasonFromTarget, []string{"what", "noun"}},
	"reasonFromTargetOne":     {reasonFromTargetOne, []string{"what", "noun"}},
	"reasonSaid":              {reasonSaid, []string{"list", "List", "is", "comes"}},
	"reasonYes":               {reasonYes, nil},
	"reasonYesAuth":           {reasonYesAuth, nil},
	"genericRefuse":           {genericRefuse, []string{"what", "target", "why"}},
	"toolRefuse":              {toolRefuse, []string{"what", "reason"}},
	"figureWillBe":            {figureWillBe, []string{"what", "value"}},
	"figureIs":                {figureIs, []string{"what", "value"}},
	"figureRefundWillBe":      {figureRefundWillBe, []string{"what", "value", "to"}},
	"figureRefundIs":          {figureRefundIs, []string{"what", "value", "to"}},
	"choiceShort":             {choiceShort, []string{"choice", "balance", "what", "amount"}},
	"choiceUnusable":          {choiceUnusable, []string{"choice", "why"}},
	"found":                   {found, []string{"what", "detail"}},
	"foundYours":              {foundYours, []string{"what", "detail"}},
	"proposeObject":           {proposeObject, []string{"object"}},
	"proposeSwap":             {proposeSwap, []string{"old", "new"}},
	"proposeSwapMany":         {proposeSwapMany, []string{"old", "new"}},
	"proposePeople":           {proposePeople, []string{"who"}},
	"proposeAccount":          {proposeAccount, []string{"noun", "id"}},
	"proposeOwnKey":           {proposeOwnKey, []string{"what", "id"}},
	"proposeSame":             {proposeSame, []string{"what"}},
	"proposeSet":              {proposeSet, []string{"what", "value"}},
	"proposeWhy":              {proposeWhy, []string{"clause"}},
	"proposeOn":               {proposeOn, []string{"what"}},
	"proposePayInline":        {proposePayInline, []string{"pay"}},
	"proposePay":              {proposePay, []string{"pay"}},
	"genericFoundSearch":      {genericFoundSearch, []string{"one", "summary"}},
	"proposeLead":             {proposeLead, nil},
	"confirmAsk":              {confirmAsk, nil},
	"doneLead":                {doneLead, nil},
	"transferMsg":             {transferMsg, nil},
	"transferSorry":           {transferSorry, nil},
	"correctionLead":          {correctionLead, nil},
	"figureLead":              {figureLead, nil},
	"holdRefusal":             {holdRefusal, nil},
	"holdRefusalAgain":        {holdRefusalAgain, nil},
	"holdRefusalHigher":       {holdRefusalHigher, nil},
	"steerBack":               {steerBack, nil},
	"steerBackSelf":           {steerBackSelf, nil},
	"genericAskWhether":       {genericAskWhether, []string{"opt"}},
	"identifyRest":            {identifyRest, []string{"missing"}},
	"passOver":                {passOver, []string{"what"}},
	"defaultChoice":           {defaultChoice, []string{"default"}},
	"insteadLead":             {insteadLead, nil},
	"slotOptions":             {slotOptions, []string{"opts"}},
	"reminderFrames":          {reminderFrames, nil},
	"unavailableNew":          {unavailableNew, []string{"label"}},
	"figureRefundNamedWillBe": {figureRefundNamedWillBe, []string{"what", "value", "to"}},
	"figureChargeWillBe":      {figureChargeWillBe, []string{"what", "value", "to"}},
	"figureMoreWillBe":        {figureMoreWillBe, []string{"what", "value", "to"}},
	"figureChargeIs":          {figureChargeIs, []string{"what", "value", "to"}},
	"retriedLead":             {retriedLead, []string{"why"}},
	"failedHandover":          {failedHandover, []string{"why"}},
}

// The agent's templates are well formed: balanced groups (an unbalanced
// one is said literally, braces and all), no alternatives outside a
// group, and only slots their calls fill.
func TestAgentTemplatesWellFormed(t *testing.T) {
	for name, b := range phraseBanks {
		if len(b.tmpls) == 0 {
			t.Errorf("%s is empty", name)
		}
		for _, tm := range b.tmpls {
			checkTemplate(t, name, tm, b.slots)
		}
	}
}

// checkTemplate checks one template statically, then renders it and
// checks that no grammar is left in what the customer would read.
func checkTemplate(t *testing.T, name, tm string, slots []string) {
	t.Helper()
	if strings.TrimSpace(tm) == "" {
		t.Errorf("%s: empty template", name)
		return
	}
	depth := 0
	for _, c := range tm {
		switch c {
		case '{':
			depth++
		case '}':
			depth--
		case '|':
			if depth == 0 {
				t.Errorf("%s: alternative outside a group in %q", name, tm)
			}
		}
		if depth < 0 {
			break
		}
	}
	if depth != 0 {
		t.Errorf("%s: unbalanced template %q", name, tm)
		return
	}
	for rest := tm; ; {
		i := strings.IndexByte(rest, '<')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i:], '>')
		if j < 0 {
			t.Errorf("%s: unterminated slot in %q", name, tm)
			break
		}
		if s := rest[i+1 : i+j]; !slices.Contains(slots, s) {
			t.Errorf("%s: slot <%s> in %q is not one its calls fill %v", name, s, tm, slots)
		}
		rest = rest[i+j+1:]
	}
	fill := map[string]string{}
	for _, s := range slots {
		fill[s] = "value"
	}
	for seed := range 32 {
		got := dialog.Render(rand.New(rand.NewPCG(uint64(seed), 3)), tm, fill)
		if got == "" || strings.ContainsAny(got, "{}|<>") {
			t.Errorf("%s: %q renders as %q", name, tm, got)
			return
		}
	}
}

// Every bank the generic agent says is in phraseBanks, every call saying
// it fills the slots the table allows it, and the templates said inline
// are checked as well. The calls are read from the package's source.
func TestAgentSaysCheckedBanks(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var parsed []*ast.File
	pkgVars := map[string]bool{}
	// Tables of banks (figureBanks): a field read out of one,
	// figureBanks[way].done, may say any bank the table holds.
	tables := map[string]*ast.CompositeLit{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, af)
		for _, d := range af.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.VAR {
				for _, sp := range gd.Specs {
					vs := sp.(*ast.ValueSpec)
					for i, n := range vs.Names {
						pkgVars[n.Name] = true
						if i < len(vs.Values) {
							if cl, ok := vs.Values[i].(*ast.CompositeLit); ok {
								tables[n.Name] = cl
							}
						}
					}
				}
			}
		}
	}
	said := map[string]bool{}
	calls := 0
	for _, af := range parsed {
		for _, d := range af.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			// Banks chosen into a local variable (tmpls := a; tmpls = b).
			locals := map[string][]string{}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
					for i, l := range as.Lhs {
						li, lok := l.(*ast.Ident)
						if !lok {
							continue
						}
						if ri, rok := as.Rhs[i].(*ast.Ident); rok && pkgVars[ri.Name] {
							locals[li.Name] = append(locals[li.Name], ri.Name)
						}
						if name, field := tableField(as.Rhs[i]); tables[name] != nil {
							locals[li.Name] = append(locals[li.Name], tableBanks(tables[name], field, pkgVars)...)
						}
					}
				}
				return true
			})
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "say" && sel.Sel.Name != "clause" || len(call.Args) != 2 {
					return true
				}
				calls++
				at := fset.Position(call.Pos()).String()
				var filled []string
				switch m := call.Args[1].(type) {
				case *ast.Ident:
					if m.Name != "nil" {
						t.Errorf("%s: say's slots come from %s; the test reads only literal maps", at, m.Name)
						return true
					}
				case *ast.CompositeLit:
					for _, e := range m.Elts {
						var lit *ast.BasicLit
						if kv, ok := e.(*ast.KeyValueExpr); ok {
							lit, _ = kv.Key.(*ast.BasicLit)
						}
						if lit == nil || lit.Kind != token.STRING {
							t.Errorf("%s: a slot name that is not a literal", at)
							continue
						}
						k, _ := strconv.Unquote(lit.Value)
						filled = append(filled, k)
					}
				default:
					t.Errorf("%s: say's slots are not a literal map", at)
					return true
				}
				var banks []string
				switch b := call.Args[0].(type) {
				case *ast.Ident:
					switch {
					case pkgVars[b.Name]:
						banks = []string{b.Name}
					case len(locals[b.Name]) > 0:
						banks = locals[b.Name]
					default:
						t.Errorf("%s: say's templates come from %s, which the test cannot follow", at, b.Name)
					}
				case *ast.CompositeLit:
					if len(b.Elts) == 0 {
						t.Errorf("%s: say of no templates", at)
					}
					for _, e := range b.Elts {
						lit, ok := e.(*ast.BasicLit)
						if !ok || lit.Kind != token.STRING {
							t.Errorf("%s: an inline template that is not a literal", at)
							continue
						}
						tm, _ := strconv.Unquote(lit.Value)
						checkTemplate(t, at, tm, filled)
					}
				default:
					t.Errorf("%s: say's templates are neither a bank nor a literal", at)
				}
				for _, name := range banks {
					said[name] = true
					b, ok := phraseBanks[name]
					if !ok {
						t.Errorf("%s: the agent says %s, which phraseBanks does not check", at, name)
						continue
					}
					for _, s := range b.slots {
						if !slices.Contains(filled, s) {
							t.Errorf("%s: says %s filling %v, without the slot <%s> phraseBanks allows it", at, name, filled, s)
						}
					}
				}
				return true
			})
		}
	}
	if calls == 0 {
		t.Fatal("found no call of say; the test no longer reads the agent")
	}
	for name := range phraseBanks {
		if !said[name] {
			t.Errorf("phraseBanks checks %s, which the agent no longer says", name)
		}
	}
}

// The agent says how it singled a record out among several: which
// match the description (the conditions in words), and which is the
// extreme by the order named, with the values compared, never the
// field's spelling ("by created at").
func TestComparisonReasoning(t *testing.T) {
	cands := []map[string]any{
		{"order_id": "#W1", "status": "pending", "created_at": "2024-05-01T10:00:00Z"},
		{"order_id": "#W2", "status": "pending", "created_at": "2024-05-09T08:30:00Z"},
		{"order_id": "#W3", "status": "delivered", "created_at": "2024-05-12T09:00:00Z"},
	}
	items := []map[string]any{
		{"order_id": "#W4", "items": []any{map[string]any{"price": 10.5}, map[string]any{"price": 2}}},
		{"order_id": "#W5", "items": []any{map[string]any{"price": 3}}},
	}
	for _, tc := range []struct {
		name   string
		sel    record.Selector
		cands  []map[string]any
		i      int
		chosen string
		say    map[string]string
		want   []string
	}{
		{"latest of two matching", record.Selector{Label: "my most recent pending order", Where: map[string]string{"status": "pending"}, Pick: "max:created_at"}, cands, 1, "order #W2", nil,
			[]string{"their most recent pending order.", "3 orders", "2 ", "pending orders", "order #W2 is the most recent", "May 9, 2024 at 8:30 AM UTC; the others: May 1, 2024 at 10:00 AM UTC"}},
		{"one matches", record.Selector{Label: "my delivered order", Where: map[string]string{"status": "delivered"}}, cands, 2, "order #W3", nil,
			[]string{"their delivered order.", "one is a delivered order: order #W3."}},
		{"by a sum", record.Selector{Label: "my most expensive order", Pick: "max:sum:items.price"}, items, 0, "order #W4", nil,
			[]string{"order #W4 is the most expensive", "$12.50; the others: $3"}},
		{"the pack's words", record.Selector{Label: "my order with the most items", Pick: "max:items_count"}, []map[string]any{{"items_count": 3}, {"items_count": 1}}, 0, "order #W6", map[string]string{"max:items_count": "with the most items"},
			[]string{"order #W6 is the one with the most items (3; the others: 1)"}},
	} {
		for seed := range uint64(8) {
			got := comparison(rand.New(rand.NewPCG(seed, 1)), "order", tc.say, tc.sel, tc.cands, tc.i, tc.chosen)
			for _, w := range tc.want {
				if !strings.Contains(strings.ToLower(got), strings.ToLower(w)) {
					t.Errorf("%s (seed %d): comparison =\n%q\nlacks %q", tc.name, seed, got, w)
				}
			}
			if strings.Contains(got, "created at") || strings.Contains(got, "by ") || strings.Contains(got, "_") {
				t.Errorf("%s: comparison names a field: %q", tc.name, got)
			}
		}
	}
	// comparison renders its banks itself, outside say's check.
	for name, b := range map[string]phraseBank{
		"reasonMeans":     {reasonMeans, []string{"label"}},
		"reasonMatchOne":  {reasonMatchOne, []string{"n", "nouns", "a_match", "chosen"}},
		"reasonMatchSome": {reasonMatchSome, []string{"n", "nouns", "m", "matches"}},
		"reasonMatchAll":  {reasonMatchAll, []string{"n", "nouns"}},
		"reasonExtreme":   {reasonExtreme, []string{"chosen", "Chosen", "superl", "value", "others"}},
		"reasonThat":      {reasonThat, []string{"chosen"}},
	} {
		for _, tm := range b.tmpls {
			checkTemplate(t, name, tm, b.slots)
		}
	}
	one := record.Selector{Label: "my delivered order", Where: map[string]string{"status": "delivered"}}
	if got := comparison(rand.New(rand.NewPCG(1, 1)), "order", nil, one, cands[2:], 0, "order #W3"); got != "" {
		t.Errorf("one candidate, nothing compared: %q", got)
	}
}

// tableField names the table and field of a read such as
// figureBanks[way].done; "" when the expression is not one.
func tableField(e ast.Expr) (table, field string) {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return "", ""
	}
	ix, ok := sel.X.(*ast.IndexExpr)
	if !ok {
		return "", ""
	}
	id, ok := ix.X.(*ast.Ident)
	if !ok {
		return "", ""
	}
	return id.Name, sel.Sel.Name
}

// tableBanks lists the banks a table's entries give the field: entries
// written as positional struct literals take the field's position in
// the table's element type.
func tableBanks(cl *ast.CompositeLit, field string, pkgVars map[string]bool) []string {
	pos := -1
	if at, ok := cl.Type.(*ast.ArrayType); ok {
		if st, ok := at.Elt.(*ast.StructType); ok {
			i := 0
			for _, f := range st.Fields.List {
				for _, n := range f.Names {
					if n.Name == field {
						pos = i
					}
					i++
				}
			}
		}
	}
	var banks []string
	for _, e := range cl.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			e = kv.Value
		}
		entry, ok := e.(*ast.CompositeLit)
		if !ok || pos < 0 || pos >= len(entry.Elts) {
			continue
		}
		if id, ok := entry.Elts[pos].(*ast.Ident); ok && pkgVars[id.Name] {
			banks = append(banks, id.Name)
		}
	}
	return banks
}
