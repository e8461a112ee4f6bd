/**
 * vitest setupFile of the in-process (unit) project: turns on the response check
 * (src/platform/http/response-check.ts) for every app the test file creates, and fails the file
 * when any answer of a documented route did not match the OpenAPI document.
 */
import { afterAll, expect } from 'vitest';
import { checkResponses, responseFindings } from '../../src/platform/http/response-check';

checkResponses();

afterAll(() => {
  expect(responseFindings(), 'answers that do not match the OpenAPI document (status: body or Content-Type)').toEqual([]);
});
