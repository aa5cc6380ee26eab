// graphql-codegen's client preset over the service's GraphQL schema (the
// contract snapshot the server is held to: internal/contract), from the
// operations in src/: it writes src/gql/ with the typed documents and
// persisted-documents.json, the manifest of trusted documents to register
// ({"<sha256>": "<document>"}). Each document carries its hash as
// __meta__.hash, which the app sends instead of the text (src/main.js).
import type { CodegenConfig } from "@graphql-codegen/cli";

const config: CodegenConfig = {
  schema: "../../internal/contract/testdata/schema.graphql",
  documents: ["src/**/*.js", "!src/gql/**"],
  generates: {
    "./src/gql/": {
      preset: "client",
      presetConfig: { persistedDocuments: { hashAlgorithm: "sha256" } },
    },
  },
  ignoreNoDocuments: false,
};

export default config;
