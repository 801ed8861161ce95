import type { Surface } from './surface.js'
import { html } from './surfaces/html.js'
import { json } from './surfaces/json.js'
import { markdown } from './surfaces/markdown.js'
import { terminal } from './surfaces/terminal.js'

export type { Surface, SurfaceTarget } from './surface.js'

/**
 * Every way a run is shown, for the Vitest and Jest reporters and evaluate() alike: each iterates this map and
 * puts each surface's text where its `to` says. A new surface is one file in `surfaces/` and one line here.
 */
export const SURFACES = { terminal, json, markdown, html } satisfies Record<string, Surface>

/** The name of a surface in {@link SURFACES}. */
export type SurfaceName = keyof typeof SURFACES
