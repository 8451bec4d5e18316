package tools

import (
	"encoding/json"
	"reflect"
	"testing"
)

type schemaItem struct {
	Text *string `json:"text" jsonschema:"required,minLength=1" jsonschema_description:"One line, with a comma."`
	Done bool    `json:"done"`
}

type schemaArgs struct {
	Name  string       `json:"name" jsonschema:"required,enum=a,enum=b"`
	Limit *int64       `json:"limit" jsonschema:"minimum=1,maximum=20" jsonschema_description:"Most, at most 20."`
	Items []schemaItem `json:"items" jsonschema:"minItems=1"`
	Skip  string       `json:"-"`
}

// spec: K1 — SchemaOf derives a closed, inlined
// object schema from an argument struct: properties from the json tags
// (json:"-" left out), required only where tagged, bounds, enums and
// descriptions (commas and all) from the tags, nested objects closed too,
// and no $schema, $id or $defs.
func TestSchemaOf(t *testing.T) {
	var got any
	if err := json.Unmarshal(SchemaOf[schemaArgs](), &got); err != nil {
		t.Fatal(err)
	}
	var want any
	if err := json.Unmarshal([]byte(`{"type":"object","additionalProperties":false,"required":["name"],"properties":{
		"name":{"type":"string","enum":["a","b"]},
		"limit":{"type":"integer","minimum":1,"maximum":20,"description":"Most, at most 20."},
		"items":{"type":"array","minItems":1,"items":{"type":"object","additionalProperties":false,"required":["text"],"properties":{
			"text":{"type":"string","minLength":1,"description":"One line, with a comma."},
			"done":{"type":"boolean"}}}}}}`), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		b, _ := json.Marshal(got)
		t.Errorf("SchemaOf[schemaArgs]() =\n%s\nwant the closed schema without $schema, $id or $defs", b)
	}
}

// SchemaOf panics for a type that is not a struct: a tool's arguments are
// always an object.
func TestSchemaOfNeedsAStruct(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("SchemaOf[[]string]() did not panic")
		}
	}()
	SchemaOf[[]string]()
}
