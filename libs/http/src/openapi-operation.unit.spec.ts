import 'reflect-metadata';
import { OpenApiOperations, openApiOperationOf, type ControllerOpenApi, type OperationDoc } from './openapi-operation';

const read: OperationDoc = { operationId: 'things.get', summary: 'Read a thing', tag: 'Things', responses: { 200: { description: 'the thing' } }, errors: ['NOT_FOUND'] };

class ThingsController {
  get(): string {
    return 'thing';
  }
  list(): string[] {
    return [];
  }
}
const THINGS_OPENAPI: ControllerOpenApi<ThingsController> = { get: read };

describe('OpenAPI declarations beside the handlers', () => {
  it('gives each handler its own declaration, and none to a handler without one or to another controller', () => {
    OpenApiOperations(THINGS_OPENAPI)(ThingsController);
    expect(openApiOperationOf(ThingsController, 'get')).toBe(read);
    expect(openApiOperationOf(ThingsController, 'list')).toBeUndefined();
    class OtherController {}
    expect(openApiOperationOf(OtherController, 'get')).toBeUndefined();
  });

  it('keys the declarations by handler names only (a misspelt handler does not compile)', () => {
    // @ts-expect-error `gte` is not a handler of ThingsController
    const misspelt: ControllerOpenApi<ThingsController> = { gte: read };
    expect(Object.keys(misspelt)).toEqual(['gte']);
  });
});
