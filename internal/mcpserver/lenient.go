package mcpserver

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contextfs/contextfs/memory"
)

// commaLists are the list arguments whose values are split at commas
// wherever they are read (the CLI's --kind, --repos, --tag, --add-tag,
// --remove-tag; IDs and links, by memory.CleanList and ParseLinks): a bare
// string given for one of them is split the same way. Paths (globs, which
// may hold {a,b}) and texts (split_memory's part) are taken whole.
var commaLists = map[string]bool{
	"kind": true, "repos": true, "tag": true, "add_tag": true, "remove_tag": true,
	"supersedes": true, "id": true, "link": true,
}

// argKind is what lenientArgs knows of one argument of a tool.
type argKind uint8

const (
	argPlain     argKind = iota // anything but a list of strings
	argList                     // a list of strings; a bare string is its one element
	argCommaList                // a list of strings; a bare string is split at commas
)

// recordArgs records the arguments of tool name's input schema and their
// kinds, for lenientArgs.
func (sv *server) recordArgs(name string, schema any) {
	s, ok := schema.(*jsonschema.Schema)
	if !ok || s == nil {
		return
	}
	kinds := map[string]argKind{}
	for prop, p := range s.Properties {
		switch {
		case p.Type != "array" || p.Items == nil || p.Items.Type != "string":
			kinds[prop] = argPlain
		case commaLists[prop]:
			kinds[prop] = argCommaList
		default:
			kinds[prop] = argList
		}
	}
	sv.args[name] = kinds
}

// lenientArgs lets a tool call name an argument by a near guess (tags
// for tag, body for content: renameAliases) and give a bare string where
// a list of strings is expected (kind "code", repos "all", tag "x"): an
// agent's natural guesses, which the input schema would refuse. The
// string becomes a one-element list, or is split at commas where the
// same value is split elsewhere. The schemas stay as they are: a
// string-or-list type for every list argument would cost every session's
// tools/list more than the budget leaves (docs/MCP.md, "Tools").
func (sv *server) lenientArgs() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
				// One decode for both rewrites: names first, so that a
				// renamed list argument is listified too.
				args := sv.args[r.Params.Name]
				r.Params.Arguments = editArgs(r.Params.Arguments, func(obj map[string]json.RawMessage) bool {
					renamed := renameAliases(obj, args)
					return listify(obj, args) || renamed
				})
			}
			return next(ctx, method, req)
		}
	}
}

// listify rewrites the string values that args says are lists in the
// arguments object obj into lists and says whether it changed any;
// anything it cannot read is left for the schema's validation to report.
func listify(obj map[string]json.RawMessage, args map[string]argKind) (changed bool) {
	for name, kind := range args {
		raw, ok := obj[name]
		if !ok || kind == argPlain {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			continue // a list already, or something for validation to refuse
		}
		list := []string{s}
		if kind == argCommaList {
			if list = memory.CleanList(list); list == nil {
				list = []string{}
			}
		}
		obj[name], _ = json.Marshal(list) // a list of strings always encodes
		changed = true
	}
	return changed
}

// editArgs decodes the arguments object args, lets edit change it, and
// encodes it again when edit says it changed; anything it cannot read is
// returned unchanged, for the schema's validation to report.
func editArgs(args json.RawMessage, edit func(obj map[string]json.RawMessage) bool) json.RawMessage {
	var obj map[string]json.RawMessage
	if len(args) == 0 || json.Unmarshal(args, &obj) != nil || !edit(obj) {
		return args
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return args
	}
	return out
}

// textAliases are other names agents give a memory's text.
var textAliases = map[string]bool{"body": true, "text": true}

// alias returns the argument of args that name, which args lacks, stands
// for: the singular or plural of one it has (tags for tag, repo for
// repos), or content for body and text; "" when none.
func alias(name string, args map[string]argKind) string {
	has := func(n string) bool { _, ok := args[n]; return ok }
	if has(name) {
		return ""
	}
	for _, c := range []string{strings.TrimSuffix(name, "s"), name + "s"} {
		if c != name && has(c) {
			return c
		}
	}
	if textAliases[name] && has("content") {
		return "content"
	}
	return ""
}

// renameAliases gives the arguments an agent named by a near guess (tags,
// paths, body) the names the tool's schema has (tag, path, content), so a
// natural guess is not refused by the strict schema: the CLI's flag names
// are singular (--tag, --path), and an agent's first guess is often the
// plural. A guess is renamed only when the tool has no argument of that
// name and the call does not also give the real one; anything else is
// left for the schema's validation to report.
func renameAliases(obj map[string]json.RawMessage, args map[string]argKind) (changed bool) {
	for name, v := range obj {
		to := alias(name, args)
		if to == "" {
			continue
		}
		if _, given := obj[to]; given {
			continue
		}
		delete(obj, name)
		obj[to] = v
		changed = true
	}
	return changed
}
