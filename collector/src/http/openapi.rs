//! `/openapi.json`: an OpenAPI 3 description of the routes.

use serde_json::{json, Value};

fn error_response(description: &str) -> Value {
    json!({ "description": description, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } })
}

fn param(name: &str, place: &str, required: bool, description: &str) -> Value {
    json!({ "name": name, "in": place, "required": required, "description": description, "schema": { "type": "string" } })
}

/// The OpenAPI 3.0 document of the API.
///
/// ```
/// let doc = collector::http::openapi_document();
/// assert_eq!(doc["openapi"], "3.0.3");
/// assert!(doc["paths"]["/v1/ads"]["get"].is_object());
/// ```
pub fn document() -> Value {
    let ad_type = param(
        "type",
        "path",
        true,
        "startd (slot ads), startd_daemon, startd_private, schedd, master, submitter, negotiator, collector, \
         accounting, license, storage, grid, had, ckptserver, or a generic MyType",
    );
    let name = param("name", "path", true, "the ad's Name");
    let bearer = json!([{ "bearer": [] }]);
    let ads_reply = json!({
        "description": "the ads",
        "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Ads" } } }
    });
    let status =
        json!({ "description": "status", "content": { "application/json": { "schema": { "type": "object" } } } });
    json!({
        "openapi": "3.0.3",
        "info": {
            "title": "HTCondor collector",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "The collector's ads over HTTP/JSON, in HTCondor's JSON form (expressions as \"\\/Expr(...)\\/\" strings)."
        },
        "paths": {
            "/v1/ads": { "get": {
                "summary": "Query ads (as Collector.query(ad_type, constraint, projection))",
                "parameters": [
                    param("type", "query", false, "the ad type (default any)"),
                    param("constraint", "query", false, "a ClassAd expression, evaluated with the ad as MY"),
                    param("projection", "query", false, "attribute names, separated by commas"),
                    param("limit", "query", false, "ads per page (default 1000, at most 10000)"),
                    param("page_token", "query", false, "next_page_token of the previous page"),
                    param("private", "query", false, "true: send private attributes (NEGOTIATOR or ADMINISTRATOR)")
                ],
                "responses": {
                    "200": ads_reply,
                    "400": error_response("a bad constraint, limit or page token"),
                    "401": error_response("a bad token"),
                    "403": error_response("not authorized")
                }
            }},
            "/v1/ads/{type}": { "post": {
                "summary": "Advertise one ad or a list (UPDATE_*_AD)",
                "security": bearer,
                "parameters": [ad_type.clone()],
                "requestBody": { "required": true, "content": { "application/json": { "schema": {
                    "oneOf": [ { "$ref": "#/components/schemas/Ad" }, { "type": "array", "items": { "$ref": "#/components/schemas/Ad" } } ]
                } } } },
                "responses": {
                    "200": status.clone(),
                    "400": error_response("a bad ad, or one the tables refuse"),
                    "401": error_response("no token, or a bad one"),
                    "403": error_response("not authorized"),
                    "413": error_response("the body is too large")
                }
            }},
            "/v1/ads/{type}/{name}": {
                "get": {
                    "summary": "One ad by Name",
                    "parameters": [ad_type.clone(), name.clone(), param("projection", "query", false, "attribute names")],
                    "responses": {
                        "200": { "description": "the ad", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Ad" } } } },
                        "404": error_response("no such ad")
                    }
                },
                "delete": {
                    "summary": "Remove one ad by Name (INVALIDATE_*_ADS)",
                    "security": bearer,
                    "parameters": [ad_type.clone(), name],
                    "responses": {
                        "200": status.clone(),
                        "401": error_response("no token, or a bad one"),
                        "403": error_response("not authorized"),
                        "404": error_response("no such ad")
                    }
                }
            },
            "/v1/invalidate/{type}": { "post": {
                "summary": "Remove the ads a constraint selects (INVALIDATE_*_ADS)",
                "security": bearer,
                "parameters": [ad_type, param("constraint", "query", false, "a ClassAd expression (or the body's)")],
                "requestBody": { "required": false, "content": { "application/json": { "schema": {
                    "type": "object", "properties": { "constraint": { "type": "string" } }
                } } } },
                "responses": {
                    "200": status.clone(),
                    "400": error_response("no constraint, or a bad one"),
                    "401": error_response("no token, or a bad one"),
                    "403": error_response("not authorized")
                }
            }},
            "/healthz": { "get": { "summary": "The process is alive", "responses": { "200": status.clone() } } },
            "/readyz": { "get": { "summary": "The CEDAR listener is serving",
                "responses": { "200": status.clone(), "503": status } } },
            "/metrics": { "get": { "summary": "Prometheus metrics (text format 0.0.4)",
                "responses": { "200": { "description": "the metrics", "content": { "text/plain": { "schema": { "type": "string" } } } } } } },
            "/openapi.json": { "get": { "summary": "This document",
                "responses": { "200": { "description": "OpenAPI 3", "content": { "application/json": { "schema": { "type": "object" } } } } } } }
        },
        "components": {
            "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer", "bearerFormat": "HTCondor IDTOKEN" } },
            "schemas": {
                "Ad": { "type": "object", "additionalProperties": true },
                "Ads": { "type": "object", "properties": {
                    "ads": { "type": "array", "items": { "$ref": "#/components/schemas/Ad" } },
                    "total_returned": { "type": "integer", "description": "ads in this page" },
                    "matched": { "type": "integer", "description": "ads the whole query selects" },
                    "has_more": { "type": "boolean" },
                    "next_page_token": { "type": "string", "nullable": true }
                } },
                "Error": { "type": "object", "properties": { "error": { "type": "object", "properties": {
                    "kind": { "type": "string" }, "message": { "type": "string" }
                } } } }
            }
        }
    })
}
