import type { RegisteredNode } from './registry.js'

/** Any node of a single-turn DAG. */
export type SingleTurnNode = Extract<RegisteredNode, { readonly mode: 'single-turn' }>

/** Any node of a conversational DAG. */
export type ConversationalNode = Extract<RegisteredNode, { readonly mode: 'conversational' }>
