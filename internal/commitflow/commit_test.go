package commitflow

import "testing"

func TestCommitMessage(t *testing.T) {
	tests := []struct {
		name  string
		files []File
		want  string
	}{
		{
			name: "counts by verb and type, plural forms",
			files: []File{
				{Path: ".contextfs/a.md", Status: Added, ID: "aaaa000001", Type: "decision", Title: "A"},
				{Path: ".contextfs/b.md", Status: Added, ID: "bbbb000001", Type: "decision", Title: "B"},
				{Path: ".contextfs/c.md", Status: Added, ID: "cccc000001", Type: "dependency", Title: "C"},
				{Path: ".contextfs/d.md", Status: Modified, ID: "dddd000001", Type: "progress", Title: "D"},
				{Path: ".contextfs/config.yaml", Status: Modified},
			},
			want: "contextfs: add 2 decisions and 1 dependency, update 1 progress and config.yaml\n\n" +
				"- added decision aaaa000001: A\n- added decision bbbb000001: B\n- added dependency cccc000001: C\n" +
				"- modified progress dddd000001: D\n- modified .contextfs/config.yaml",
		},
		{
			name: "more than two types are summed as memories",
			files: []File{
				{Path: ".contextfs/a.md", Status: Deleted, ID: "aaaa000001", Type: "fact", Title: "A"},
				{Path: ".contextfs/b.md", Status: Deleted, ID: "bbbb000001", Type: "error", Title: "B"},
				{Path: ".contextfs/c.md", Status: Deleted, ID: "cccc000001", Type: "todo", Title: "C"},
			},
			want: "contextfs: delete 3 memories\n\n- deleted fact aaaa000001: A\n- deleted error bbbb000001: B\n- deleted todo cccc000001: C",
		},
		{
			name:  "an unreadable memory is named by path",
			files: []File{{Path: ".contextfs/x.md", Status: Added}},
			want:  "contextfs: add 1 memory\n\n- added .contextfs/x.md",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Message(tt.files); got != tt.want {
				t.Errorf("CommitMessage =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
