package usersim

import (
	"github.com/synth-data/synth/dialog"
	"github.com/synth-data/synth/model"
	"github.com/synth-data/synth/record"
	"github.com/synth-data/synth/tools"
)

// wrongRefused turns down a proposal for a forbidden request (goal i)
// that names another record than the one the customer means: a request
// the policy refuses has no ground-truth write to compare with, so the
// customer singles its record out among the owner's as the agent must
// (by key, or by the description and pick), and says no when the
// agent's is another. A proposal on the right record is the agent's to
// refuse; the customer has nothing against it.
func (u *Generic) wrongRefused(i int, w *model.WriteModel, got map[string]any) (dialog.Turn, bool) {
	g := u.bp.Goals[i]
	key := w.KeyParam()
	if g.Kind != record.GoalRefuse || w.TargetKind != model.TargetColl || key == "" || g.Target.Collection != w.Coll.Name {
		return dialog.Turn{}, false
	}
	proposed := tools.Text(got[key])
	v, ok := u.m.Base.Get(w.Coll.Name, proposed)
	rec, _ := v.(map[string]any)
	if !ok || rec == nil || w.Coll.Owner == "" {
		return dialog.Turn{}, false
	}
	var cands []map[string]any
	for _, k := range u.m.OwnedKeys(w.Coll, tools.Text(rec[w.Coll.Owner])) {
		if v, ok := u.m.Base.Get(w.Coll.Name, k); ok {
			if c, isObj := v.(map[string]any); isObj {
				cands = append(cands, c)
			}
		}
	}
	j, err := tools.ResolveKey(g.Target, cands, w.Coll.Key)
	if err != nil || tools.Text(cands[j][w.Coll.Key]) == proposed {
		return dialog.Turn{}, false
	}
	return u.targetCorrection(i, w, w.Param(key), got), true
}
