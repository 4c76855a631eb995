package workflow

import "github.com/contextfs/contextfs"

// noRepoHooksMessage is the hooks check of a checkup outside any
// repository: git runs hooks per repository, and the user store is
// committed by contextfs itself, so there is nothing to install there.
const noRepoHooksMessage = "not a repository: hooks are per repository (git contextfs install in each)"

// noRepoHooks replaces rep's hooks check, made on the user store, with
// one saying that hooks do not apply outside a repository.
func noRepoHooks(rep *contextfs.DoctorReport) {
	for i, c := range rep.Checks {
		if c.Name != "hooks" {
			continue
		}
		rep.Checks[i] = contextfs.DoctorCheck{Name: c.Name, OK: true, Message: noRepoHooksMessage}
	}
	rep.OK = true
	for _, c := range rep.Checks {
		rep.OK = rep.OK && c.OK
	}
}
