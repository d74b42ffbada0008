//! The OpenAPI 3 description served at `/openapi.json`. Written by hand next to the code it
//! describes; tests/serve_api/openapi.rs checks that its routes are the router's and that real
//! answers match its schemas.

use serde_json::{json, Value};

fn error_response(description: &str) -> Value {
    json!({
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    })
}

fn json_response(description: &str, schema: &str) -> Value {
    json!({
        "description": description,
        "content": {"application/json": {"schema": {"$ref": format!("#/components/schemas/{schema}")}}}
    })
}

/// The whole document.
pub fn document() -> Value {
    let text = json!({"type": "string"});
    // An id may be a number too, read as its JSON text (docs/JUDGMENT_SETS.md).
    let id = json!({"oneOf": [{"type": "string"}, {"type": "number"}],
                    "description": "A string, or a number read as its JSON text (7 is \"7\")."});
    let number_or_null = json!({"type": "number", "nullable": true});
    // Its own value: inline, the document exceeds the json! macro's recursion limit.
    let model_card = json!({
        "type": "object",
        "required": ["name", "target", "reference_free", "version", "builtin", "batch_dependent"],
        "properties": {
            "name": text, "target": text, "reference_free": {"type": "boolean"},
            "neural": {"type": "boolean"},
            "version": text, "builtin": {"type": "boolean"}, "summary": text, "card": text,
            "source": text, "classes": {"type": "array", "items": text},
            "features": {"type": "integer"},
            "batch_dependent": {"type": "boolean",
                                "description": "A summary's score depends on the other summaries of its topic in the same request (the consensus class, or features normalized within each topic)."},
            "learner": text, "hyper": {"type": "object"}, "anchor": {"type": "string", "nullable": true},
            "pair_length_tolerance": {"type": "number", "nullable": true,
                                      "description": "The ranking SVM learned only from pairs of summaries whose word counts were within this share of the longer one's (--pair-length-tolerance)."},
            "columns_per_class": {"type": "object", "additionalProperties": {"type": "integer"}},
            "feature_options_changed": {"type": "object"},
            "neural_options": {"type": "object", "nullable": true},
            "normalization": text, "feature_ranges": {"type": "boolean"},
            "calibration": {"type": "object", "nullable": true,
                            "properties": {"slope": {"type": "number"}, "intercept": {"type": "number"},
                                           "min": {"type": "number"}, "max": {"type": "number"}}},
            "held_out_mae": {"type": "number", "nullable": true},
            "training_sets": {"type": "array", "items": {"type": "object"}},
            "seed": {"type": "integer"}, "equal_set_weights": {"type": "boolean"},
            "stack_bases": {"type": "array", "nullable": true, "items": {"type": "object"}},
            "format_version": {"type": "integer"},
            "written_by": {"type": "string", "nullable": true}
        }
    });
    // One model's whole card: the listing's facts with the feature names, and for a user model
    // every weight (linear learners) and the stored report, as `aesop models FILE --json`.
    let mut model_detail = model_card.clone();
    model_detail["properties"]["features"] = json!({"type": "array", "items": text});
    model_detail["properties"]["weights"] =
        json!({"type": "array", "nullable": true, "items": {"type": "object"}});
    model_detail["properties"]["report"] = json!({"nullable": true});
    json!({
        "openapi": "3.0.3",
        "info": {
            "title": "aesop prediction service",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Predicts human judgments of summaries (pyramid, responsiveness, readability, or \
                            user-trained targets). See docs/SERVICE.md."
        },
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {
                "Error": {
                    "type": "object",
                    "required": ["error"],
                    "additionalProperties": false,
                    "properties": {"error": {
                        "type": "object",
                        "required": ["code", "message"],
                        "additionalProperties": false,
                        "properties": {
                            "code": {"type": "string", "enum": [
                                "malformed_json", "invalid_utf8", "invalid_encoding", "unsupported_encoding", "duplicate_key", "wrong_type", "missing_field",
                                "unknown_field", "invalid_value", "empty_summary", "empty_document",
                                "empty_reference", "unknown_model", "references_required",
                                "body_too_large", "batch_too_large",
                                "text_too_long", "overloaded", "timeout", "not_ready", "unauthorized",
                                "not_found", "method_not_allowed", "reload_failed", "internal"
                            ]},
                            "message": text,
                            "field": {"type": "string", "description": "The part of the request at fault, e.g. topics[0].summaries[2].text"}
                        }
                    }}
                },
                "Topic": {
                    "type": "object",
                    "description": "One judgment-set line (docs/JUDGMENT_SETS.md); scores are ignored, unknown fields kept.",
                    "required": ["topic", "documents", "summaries"],
                    "properties": {
                        "topic": id,
                        "query": {"type": "object", "properties": {"title": text, "narrative": text}},
                        "documents": {"type": "array", "minItems": 1, "items": {"$ref": "#/components/schemas/Text"}},
                        "references": {"type": "array", "items": {"$ref": "#/components/schemas/Text"}},
                        "summaries": {"type": "array", "minItems": 1, "items": {
                            "type": "object",
                            "required": ["system", "text"],
                            "properties": {"system": id, "text": {"type": "string", "minLength": 1}}
                        }}
                    }
                },
                "Text": {
                    "type": "object",
                    "required": ["id", "text"],
                    "properties": {"id": id, "text": {"type": "string", "minLength": 1,
                                                        "description": "Not blank (empty_document, empty_reference)."}}
                },
                "ScoreRequest": {
                    "type": "object",
                    "required": ["topics"],
                    "additionalProperties": false,
                    "properties": {
                        "topics": {"type": "array", "minItems": 1, "items": {"$ref": "#/components/schemas/Topic"}},
                        "models": {"type": "array", "minItems": 1, "items": text,
                                   "description": "Model names (GET /v1/models). Default: per topic the built-in pyramid, \
                                                   responsiveness and readability models, reference-based if the topic has \
                                                   references, else the -noref ones."},
                        "features": {"type": "boolean", "default": false},
                        "systems": {"type": "boolean", "default": false,
                                    "description": "Also answer each system's mean per model, ranked, as aesop score --systems."}
                    }
                },
                "ModelRef": {
                    "type": "object",
                    "required": ["name", "version", "target"],
                    "additionalProperties": false,
                    "properties": {"name": text, "version": text, "target": text}
                },
                "ScoreResponse": {
                    "type": "object",
                    "required": ["results", "models"],
                    "additionalProperties": false,
                    "properties": {
                        "results": {"type": "array", "items": {
                            "type": "object",
                            "required": ["topic", "system", "scores"],
                            "additionalProperties": false,
                            "properties": {
                                "topic": text,
                                "system": text,
                                "scores": {"type": "object", "additionalProperties": number_or_null},
                                "raw": {"type": "object", "additionalProperties": number_or_null,
                                        "description": "Calibrated models only: the model's output before calibration (aesop score's raw)."},
                                "in_training": {"type": "array", "items": text,
                                                "description": "The models that learned from this summary (the same topic id and text are in their training data): their scores of it are in-sample (aesop score's \"in_training\": true). Absent when none did."},
                                "warning": text,
                                "features": {"type": "object", "additionalProperties": number_or_null}
                            }
                        }},
                        "models": {"type": "array", "items": {"$ref": "#/components/schemas/ModelRef"}},
                        "warnings": {"type": "array", "items": text,
                                     "description": "aesop score's warnings about the request: batch-dependent models, feature classes without values for some summaries, text that does not read as English, systems scored on different topics."},
                        "systems": {"type": "array", "items": {"$ref": "#/components/schemas/SystemMean"},
                                    "description": "With \"systems\": true: the rows of aesop score --systems."}
                    }
                },
                "SystemMean": {
                    "type": "object",
                    "required": ["model", "rank", "system", "mean", "low", "high", "topics", "scored"],
                    "additionalProperties": false,
                    "properties": {
                        "model": {"type": "string", "description": "The model's name, or the target for the default built-ins."},
                        "rank": {"type": "integer", "nullable": true, "minimum": 1,
                                 "description": "1 for the highest mean; equal means share a rank; null when no summary was scored."},
                        "system": text,
                        "mean": number_or_null,
                        "low": {"type": "number", "nullable": true, "description": "95% percentile-bootstrap interval over the system's topics (1,000 samples, seed 1); null with fewer than two."},
                        "high": number_or_null,
                        "topics": {"type": "integer", "minimum": 0, "description": "Topics with a summary of the system."},
                        "scored": {"type": "integer", "minimum": 0, "description": "Summaries scored (the mean is over these)."},
                        "models": {"type": "string", "description": "Default built-ins only: the variants that scored the system's topics."}
                    }
                },
                "ModelCard": model_card,
                "ModelDetail": model_detail,
                "ModelList": {
                    "type": "object",
                    "required": ["models"],
                    "additionalProperties": false,
                    "properties": {"models": {"type": "array", "items": {"$ref": "#/components/schemas/ModelCard"}}}
                },
                "Reloaded": {
                    "type": "object",
                    "required": ["reloaded", "models"],
                    "additionalProperties": false,
                    "properties": {
                        "reloaded": {"type": "boolean"},
                        "models": {"type": "array", "items": {"$ref": "#/components/schemas/ModelRef"}}
                    }
                },
                "Status": {
                    "type": "object",
                    "required": ["status"],
                    "additionalProperties": false,
                    "properties": {"status": text}
                }
            }
        },
        "security": [{"bearer": []}],
        "paths": {
            "/healthz": {"get": {
                "summary": "Liveness: the process answers.",
                "security": [],
                "responses": {"200": json_response("Alive", "Status")}
            }},
            "/readyz": {"get": {
                "summary": "Readiness: models loaded and warmed, not shutting down.",
                "security": [],
                "responses": {
                    "200": json_response("Ready", "Status"),
                    "503": error_response("Loading or shutting down (not_ready)")
                }
            }},
            "/metrics": {"get": {
                "summary": "Prometheus metrics (text format 0.0.4).",
                "responses": {"200": {"description": "Metrics", "content": {"text/plain": {"schema": text}}}}
            }},
            "/openapi.json": {"get": {
                "summary": "This document.",
                "responses": {"200": {"description": "OpenAPI 3 document", "content": {"application/json": {"schema": {"type": "object"}}}}}
            }},
            "/v1/models": {"get": {
                "summary": "The models this service scores with: built-ins and user models.",
                "responses": {
                    "200": json_response("Model cards", "ModelList"),
                    "503": error_response("Models still loading")
                }
            }},
            "/v1/models/{name}": {"get": {
                "summary": "One model's whole card: feature names, weights and stored report included. A model named `reload` is listed but has no card here (that path is the reload route).",
                "parameters": [{"name": "name", "in": "path", "required": true, "schema": {"type": "string"}}],
                "responses": {
                    "200": json_response("The model's card", "ModelDetail"),
                    "404": error_response("No model of that name (unknown_model)"),
                    "503": error_response("Models still loading")
                }
            }},
            "/v1/models/reload": {"post": {
                "summary": "Read the user model files again; on any error the previous models keep serving.",
                "responses": {
                    "200": json_response("Reloaded", "Reloaded"),
                    "500": error_response("A model file is missing or corrupt (reload_failed)"),
                    "503": error_response("Models still loading at start, or shutting down (not_ready); or the reload outlasted --timeout-ms (timeout) and goes on; see Retry-After")
                }
            }},
            "/v1/score": {"post": {
                "summary": "Score summaries.",
                "description": "The body is JSON, sent as is or gzip-compressed (Content-Encoding: gzip). The answer, like every answer of 1 kB or more, is gzip-compressed (Content-Encoding: gzip) when the request sends Accept-Encoding: gzip.",
                "requestBody": {"required": true, "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/ScoreRequest"},
                    "example": {
                        "topics": [{
                            "topic": "t1",
                            "documents": [{"id": "d1", "text": "The council approved the budget on Monday."}],
                            "summaries": [{"system": "mine", "text": "The budget was approved."}]
                        }],
                        "models": ["pyramid-noref"]
                    }
                }}},
                "responses": {
                    "200": json_response("Predictions, one result per summary in request order", "ScoreResponse"),
                    "400": error_response("Malformed JSON, invalid UTF-8, an object repeating a key (duplicate_key), or a body sent with Content-Encoding: gzip that is not gzip (invalid_encoding)"),
                    "401": error_response("Missing or wrong bearer token"),
                    "413": error_response("Body (decompressed, when sent with Content-Encoding: gzip), batch or text over a limit"),
                    "415": error_response("A Content-Encoding other than gzip or identity (unsupported_encoding); see Accept-Encoding"),
                    "422": error_response("A field is invalid (the error names it), an unknown model, or a model that needs references a topic lacks"),
                    "429": error_response("Overloaded; see Retry-After"),
                    "503": error_response("Not ready, or the request timed out; see Retry-After")
                }
            }}
        }
    })
}
