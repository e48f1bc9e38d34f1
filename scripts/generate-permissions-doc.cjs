// Writes docs/permissions.md from the permission table as built (npm run docs:permissions builds first); the
// unit test src/common/principal/permission-table.spec.ts fails when the file and the table differ.
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { permissionTableMarkdown } = require('../dist/common/principal/permission-table.js');
writeFileSync(join(__dirname, '..', 'docs', 'permissions.md'), permissionTableMarkdown());
console.log('wrote docs/permissions.md');
