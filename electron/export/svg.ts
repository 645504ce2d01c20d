/** Scene → standalone SVG document: the one writer lives in shared/charts/sceneToSvg.ts, since the window exports too. */
export { escapeXml, sceneToSvg } from '../../shared/charts/sceneToSvg.ts';
