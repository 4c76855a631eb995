package workflow

import (
	"context"
	"errors"

	"github.com/contextfs/contextfs"
	"github.com/contextfs/contextfs/gitstore"
	"github.com/contextfs/contextfs/internal/scope"
)

// UserStoreStatus is where the person's own store is and how it stands.
type UserStoreStatus = scope.UserStoreStatus

// StatusReport is the repository's status and, beside it, the user
// store's.
type StatusReport struct {
	*contextfs.Status
	UserStore UserStoreStatus `json:"user_store"`
}

// Status reports on the served store and the user store; the user store
// is read without being created, marked or indexed.
func (s *Service) Status(ctx context.Context) (*StatusReport, error) {
	st, err := s.served()
	if err != nil {
		return nil, err
	}
	rep, err := st.Status(ctx)
	if err != nil {
		return nil, err
	}
	return &StatusReport{Status: rep, UserStore: scope.UserStatus(ctx)}, nil
}

// DoctorRequest checks the setup of the repository around Dir.
type DoctorRequest struct {
	Dir string
	// Version is the running program's, which the binary the hooks run
	// is compared with.
	Version string
	// Fix repairs what can be repaired first.
	Fix bool
	// NoRepo says Dir is the user store, served alone outside any
	// repository (the MCP server started in a home folder): hooks are
	// per repository, so their check says so instead of warning that
	// the user store has none (noRepoHooks).
	NoRepo bool
}

// Checkup is doctor's report and the repairs that failed (the report is
// complete all the same).
type Checkup struct {
	Report       *contextfs.DoctorReport
	RepairErrors []error
}

// Doctor checks the hooks, the merge driver, the config, the cache, the
// memories and the user store (where it is, whether all is committed,
// whether it is its owner's only), repairing first with Fix. Every adapter
// reports these same checks. Outside any repository it checks the user
// store, as the MCP server started there serves it (NoRepo); with no user
// store either it is ErrNotRepo: checking creates nothing.
func Doctor(ctx context.Context, req DoctorRequest) (*Checkup, error) {
	repo, err := gitstore.Discover(req.Dir)
	if errors.Is(err, gitstore.ErrNotRepo) {
		// Only a store that is one: a CONTEXTFS_USER_DIR naming another
		// project's checkout is reported by status, never checked (and
		// with Fix, written) as if it were the user's.
		if us := scope.UserStatus(ctx); us.Exists && us.Problem == "" {
			req.NoRepo = true
			repo, err = gitstore.Discover(us.Path)
		}
	}
	if err != nil {
		return nil, err
	}
	out := &Checkup{}
	rep, err := contextfs.Doctor(ctx, repo, contextfs.DoctorOptions{Version: req.Version, Fix: req.Fix})
	if err != nil {
		if rep == nil {
			return nil, err
		}
		out.RepairErrors = append(out.RepairErrors, err)
	}
	if req.NoRepo {
		noRepoHooks(rep)
	}
	rep.Checks = append(rep.Checks, scope.UserStatus(ctx).Diagnosis())
	priv, fixedPriv, err := scope.PrivacyDiagnosis(ctx, req.Fix)
	if err != nil {
		out.RepairErrors = append(out.RepairErrors, err)
	}
	if fixedPriv != "" {
		rep.Fixed = append(rep.Fixed, fixedPriv)
	}
	rep.Checks = append(rep.Checks, priv)
	rep.OK = rep.OK && priv.OK
	out.Report = rep
	return out, nil
}
