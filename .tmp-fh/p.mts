import sharp from 'sharp';
await sharp('server/imaging/assets/products/hollis-lounge-chair.svg', { density: 300 }).resize(600).png().toFile('/tmp/fh/product.png');
