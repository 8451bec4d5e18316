package tools

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/invopop/jsonschema"
)

// SchemaOf returns the JSON Schema of T, the struct a tool decodes its
// arguments into, for Spec.Schema: derived from the struct so that the
// schema the model reads and the fields Decode accepts cannot drift apart
// Properties come from the json tags; a field is
// required when its jsonschema tag says "required"; descriptions come from
// jsonschema_description tags; bounds and enums from jsonschema tags
// (minimum=1, enum=a,enum=b); a type with a JSONSchemaExtend method adjusts
// its own schema (bounds taken from Go constants). Objects are closed
// (additionalProperties: false) and inlined: no $schema, $id or $defs, which
// providers do not want in a function's parameters.
//
// SchemaOf panics if T is not a struct: a programmer error, found when
// the tool's package loads.
func SchemaOf[T any]() json.RawMessage {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("tools.SchemaOf: %s is not a struct", t))
	}
	r := jsonschema.Reflector{Anonymous: true, DoNotReference: true, RequiredFromJSONSchemaTags: true}
	s := r.ReflectFromType(t)
	s.Version = ""
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tools.SchemaOf[%s]: %v", t, err))
	}
	return b
}
