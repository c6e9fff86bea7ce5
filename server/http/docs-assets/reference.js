// Swagger UI configured so that axe-core finds no violation: no deep-link anchors inside the operation buttons
// (nested-interactive), landmarks around the parts outside <main>, an <h2> between the title and the tag headings,
// a label on every form field, and no "Try it out" (its editor and credentials dialog cannot be labelled from here;
// the dashboard's playground is where requests are tried).
(() => {
  function accessibility(system) {
    var h = system.React.createElement;
    function prepend(before) {
      return (Original) => (props) => h(system.React.Fragment, null, before(props), h(Original, props));
    }
    function region(label, Original) {
      return (props) => h('section', { 'aria-label': label }, h(Original, props));
    }
    return {
      components: {
        AuthorizeBtnContainer: () => null,
        // Instead of the lock that opens the credentials dialog: without "Try it out" there is nothing to authorize.
        authorizeOperationBtn: () => h('span', { className: 'operation-credentials' }, 'needs credentials'),
      },
      wrapComponents: {
        InfoContainer: (Original) => region('About this API', Original),
        ServersContainer: (Original) =>
          region(
            'Server',
            prepend(() => h('label', { htmlFor: 'servers', className: 'visually-hidden' }, 'Server'))(Original),
          ),
        operations: prepend(() => h('h2', { className: 'visually-hidden' }, 'Operations')),
        JsonSchemaForm: (Original) => (props) => {
          var name = h('span', { className: 'visually-hidden' }, props.description || 'Value');
          return h('label', null, name, h(Original, props));
        },
      },
    };
  }

  window.ui = SwaggerUIBundle({
    url: '/api/v1/openapi.json',
    dom_id: '#reference',
    deepLinking: false,
    syntaxHighlight: false,
    supportedSubmitMethods: [],
    plugins: [accessibility],
  });
})();
