package schema

import (
	"time"

	"entgo.io/ent"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
	"entgo.io/ent/schema/index"

	"logistics/internal/resourceid"
)

// The auth types live in the production database only: console users are
// shared by both environments, and each token names the environment it is for.
// They are not exposed by the generated GraphQL schema; the console has its
// own hand-written types.

// User is a console account.
type User struct{ ent.Schema }

func (User) Mixin() []ent.Mixin { return []ent.Mixin{withID(resourceid.User), timeMixin{}} }

func (User) Fields() []ent.Field {
	return []ent.Field{
		field.String("email").Unique().NotEmpty().MaxLen(254),
		field.String("name").Default("").MaxLen(200),
		field.String("password_hash").Sensitive().NotEmpty(),
		field.Enum("role").Values("owner", "admin", "member", "viewer").Default("member"),
		field.Bool("disabled").Default(false),
		field.Time("last_login_at").Optional().Nillable(),
	}
}

func (User) Edges() []ent.Edge {
	return []ent.Edge{edge.To("tokens", APIToken.Type), edge.To("sessions", Session.Type)}
}

func (User) Annotations() []schema.Annotation { return internalOnly() }

// APIToken is a Bearer API key. Only a hash of the secret is stored.
type APIToken struct{ ent.Schema }

func (APIToken) Mixin() []ent.Mixin { return []ent.Mixin{withID(resourceid.APIToken), timeMixin{}} }

func (APIToken) Fields() []ent.Field {
	return []ent.Field{
		field.String("name").NotEmpty().MaxLen(100),
		field.String("display_prefix").NotEmpty().MaxLen(32).Comment("The first characters of the secret, shown in the console."),
		field.String("secret_hash").Unique().NotEmpty().Sensitive(),
		field.Enum("environment").Values("production", "sandbox"),
		field.JSON("scopes", []string{}),
		field.Time("expires_at").Optional().Nillable(),
		field.Time("last_used_at").Optional().Nillable(),
		field.Time("revoked_at").Optional().Nillable(),
		optionalFK("user_id", "The console user who created the key."),
	}
}

func (APIToken) Edges() []ent.Edge {
	return []ent.Edge{edge.From("user", User.Type).Ref("tokens").Field("user_id").Unique()}
}

func (APIToken) Indexes() []ent.Index { return []ent.Index{index.Fields("user_id")} }

func (APIToken) Annotations() []schema.Annotation { return internalOnly() }

// Session is a console login, stored by a hash of its cookie value so that any
// instance sharing the database can serve it.
type Session struct{ ent.Schema }

func (Session) Mixin() []ent.Mixin { return []ent.Mixin{withID(resourceid.Session), timeMixin{}} }

func (Session) Fields() []ent.Field {
	return []ent.Field{
		field.String("token_hash").Unique().NotEmpty().Sensitive(),
		field.String("csrf_token").NotEmpty().Sensitive(),
		fk("user_id", "The signed-in user."),
		field.Time("expires_at"),
		field.Time("last_seen_at").Default(func() time.Time { return time.Now().UTC() }),
		field.String("user_agent").Default("").MaxLen(400),
		field.String("remote_addr").Default("").MaxLen(64),
	}
}

func (Session) Edges() []ent.Edge {
	return []ent.Edge{edge.From("user", User.Type).Ref("sessions").Field("user_id").Unique().Required()}
}

func (Session) Indexes() []ent.Index {
	return []ent.Index{index.Fields("user_id"), index.Fields("expires_at")}
}

func (Session) Annotations() []schema.Annotation { return internalOnly() }

// IdempotencyKey remembers the response to a POST sent with an
// Idempotency-Key header, so that a retry replays it instead of creating twice.
type IdempotencyKey struct{ ent.Schema }

func (IdempotencyKey) Mixin() []ent.Mixin {
	return []ent.Mixin{withID(resourceid.Idempotency), timeMixin{}}
}

func (IdempotencyKey) Fields() []ent.Field {
	return []ent.Field{
		field.String("principal").NotEmpty().MaxLen(64).Comment("The token or user that sent it."),
		field.String("key").NotEmpty().MaxLen(255),
		field.String("method").MaxLen(10),
		field.String("path").MaxLen(2048),
		field.String("request_hash").MaxLen(64),
		field.Int("status").Default(0).Comment("0 while the first request is still running."),
		field.String("content_type").Default(""),
		field.Bytes("body").Optional(),
	}
}

func (IdempotencyKey) Indexes() []ent.Index {
	return []ent.Index{index.Fields("principal", "key").Unique()}
}

func (IdempotencyKey) Annotations() []schema.Annotation { return internalOnly() }
