package mcpserver

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// commaLists are the list arguments whose values the CLI splits at commas
// (--kind, --repos, --tag, --add-tag, --remove-tag, IDs): a bare string
// given for one of them is split the same way. Paths (globs, which may
// hold {a,b}) and texts (split_memory's part) are taken whole.
var commaLists = map[string]bool{
	"kind": true, "repos": true, "tag": true, "add_tag": true, "remove_tag": true,
	"supersedes": true, "id": true, "link": true,
}

// listArgs records, per tool, the arguments whose schema is a list of
// strings, for lenientLists.
func (sv *server) listArgs(name string, schema any) {
	s, ok := schema.(*jsonschema.Schema)
	if !ok || s == nil {
		return
	}
	for prop, p := range s.Properties {
		if sv.props == nil {
			sv.props = map[string]map[string]bool{}
		}
		if sv.props[name] == nil {
			sv.props[name] = map[string]bool{}
		}
		sv.props[name][prop] = true
		if p.Type != "array" || p.Items == nil || p.Items.Type != "string" {
			continue
		}
		if sv.lists == nil {
			sv.lists = map[string]map[string]bool{}
		}
		if sv.lists[name] == nil {
			sv.lists[name] = map[string]bool{}
		}
		sv.lists[name][prop] = commaLists[prop]
	}
}

// lenientLists lets a tool call give a bare string where a list of strings
// is expected (kind "code", repos "all", tag "x"): an agent's natural
// guess, which the input schema would refuse. The string becomes a
// one-element list, or is split at commas where the CLI splits the same
// flag. The schemas stay as they are: a string-or-list type for every
// list argument would cost every session's tools/list more than the
// budget leaves (docs/MCP.md, "Tools").
func (sv *server) lenientLists() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
				// One decode for both rewrites: names first, so that a
				// renamed list argument is listified too.
				names, lists := sv.props[r.Params.Name], sv.lists[r.Params.Name]
				r.Params.Arguments = editArgs(r.Params.Arguments, func(obj map[string]json.RawMessage) bool {
					renamed := renameAliases(obj, names)
					return listify(obj, lists) || renamed
				})
			}
			return next(ctx, method, req)
		}
	}
}

// listify rewrites the string values of props (name → split at commas)
// in the arguments object obj into lists and says whether it changed
// any; anything it cannot read is left for the schema's validation to
// report.
func listify(obj map[string]json.RawMessage, props map[string]bool) (changed bool) {
	for name, split := range props {
		raw, ok := obj[name]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			continue // a list already, or something for validation to refuse
		}
		list := []string{s}
		if split {
			list = nil
			for _, p := range strings.Split(s, ",") {
				if p = strings.TrimSpace(p); p != "" {
					list = append(list, p)
				}
			}
		}
		enc, err := json.Marshal(list)
		if err != nil {
			continue
		}
		if list == nil {
			enc = []byte("[]")
		}
		obj[name] = enc
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

// alias returns the argument of props that name, which props lacks, stands
// for: the singular or plural of one it has (tags for tag, repo for
// repos), or content for body and text; "" when none.
func alias(name string, props map[string]bool) string {
	if props[name] {
		return ""
	}
	for _, c := range []string{strings.TrimSuffix(name, "s"), name + "s"} {
		if c != name && props[c] {
			return c
		}
	}
	if textAliases[name] && props["content"] {
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
func renameAliases(obj map[string]json.RawMessage, props map[string]bool) (changed bool) {
	for name, v := range obj {
		to := alias(name, props)
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
